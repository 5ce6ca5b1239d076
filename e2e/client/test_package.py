"""The client as a package: its models are what the running server's OpenAPI document says,
it is versioned with the server, and ``pip install ./clients/python`` in a fresh virtualenv
plays the documented example against a real arena."""

from __future__ import annotations

import shutil
import subprocess
import sys
import tomllib
from pathlib import Path

import httpx
import pytest

import arena_client
from arena_client import Arena
from arena_client._codegen import generate
from e2e.client.conftest import client_path
from tests.support import ROOT, ProductProcess

pytestmark = [pytest.mark.slow]


def test_the_models_are_generated_from_the_running_servers_document(
    client_product: ProductProcess,
) -> None:
    document = httpx.get(client_product.url + "/openapi.json", timeout=30).json()
    committed = (client_path() / "arena_client" / "models.py").read_text()
    assert generate(document) == committed, (
        "arena_client/models.py is out of date: python -m arena_client._codegen --from-server"
    )


def test_the_client_is_versioned_with_the_server(client_product: ProductProcess) -> None:
    server = tomllib.loads((ROOT / "pyproject.toml").read_text())["project"]["version"]
    client = tomllib.loads((client_path() / "pyproject.toml").read_text())["project"]["version"]
    assert arena_client.__version__ == client == server == arena_client.models.SERVER_VERSION
    with Arena(client_product.url) as arena:
        assert arena.health().version == server


def test_a_fresh_virtualenv_installs_the_package_and_plays_the_example(
    client_product: ProductProcess, tmp_path: Path
) -> None:
    # A copy, so that the build leaves nothing in the tree.
    source = shutil.copytree(
        client_path(),
        tmp_path / "client",
        ignore=shutil.ignore_patterns("*.egg-info", "__pycache__"),
    )
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", str(venv)], check=True)
    python = str(venv / "bin" / "python")
    subprocess.run(
        [python, "-m", "pip", "install", "--quiet", str(source)], check=True, timeout=600
    )
    # Only what the package declares came with it.
    listed = subprocess.run(
        [python, "-m", "pip", "list", "--format=freeze"], check=True, capture_output=True, text=True
    ).stdout.lower()
    assert "arena-client==" in listed and "reflex" not in listed and "arena==" not in listed
    example = ROOT / "docs" / "examples" / "scripted_voter.py"
    played = subprocess.run(
        [python, str(example), "--url", client_product.url, "--rounds", "6", "--wait", "0"],
        capture_output=True,
        text=True,
        timeout=300,
        cwd=tmp_path,
    )
    assert played.returncode == 0, played.stderr
    lines = played.stdout.splitlines()
    assert lines[0].startswith("Arena 0.1.0 at ") and lines[0].endswith(": ok")
    assert sum(" tokens  " in line for line in lines) == 6
    # The board: the rating process is off in this arena, so wins and losses without ratings.
    board = lines[[i for i, x in enumerate(lines) if x.startswith("Leaderboard")][0] + 2 :]
    assert len(board) == 4 and all(" Mock " in row for row in board)
    assert sum(int(row.split()[-2].split("-")[0]) for row in board) >= 1
