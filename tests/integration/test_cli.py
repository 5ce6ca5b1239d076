"""`arena` refuses to start on a bad configuration with one line, before serving anything."""

from __future__ import annotations

import os
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from tests.support import ROOT


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    clean = {k: v for k, v in os.environ.items() if not k.startswith(("ARENA_", "MATCHUP_"))}
    return subprocess.run(
        [sys.executable, "-m", "arena_api", *args],
        cwd=ROOT,
        env={**clean, **env},
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )


def test_serve_without_a_token_secret_stops_with_one_line() -> None:
    result = _arena("serve", PORT="1")

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "arena: invalid setting MATCHUP_TOKEN_SECRET='': required (at least 16 characters) "
        "unless ARENA_ALLOW_DEV_SECRET=1"
    ]


@pytest.mark.slow
def test_serve_with_an_unknown_default_model_stops_with_one_line(
    fresh_database: Callable[[], str],
) -> None:
    result = _arena(
        "serve",
        DATABASE_URL=fresh_database(),
        ARENA_ALLOW_DEV_SECRET="1",
        ARENA_MOCK_PROVIDER="1",
        ARENA_TRIGGER="manual",
        ARENA_DEFAULT_MODEL="gpt-nope",
    )

    lines = result.stderr.strip().splitlines()
    assert result.returncode == 2
    assert len(lines) == 1 and lines[0].startswith(
        "arena: ARENA_DEFAULT_MODEL='gpt-nope' matches no enabled model"
    )
    assert "Mock Aurora" in lines[0]


@pytest.mark.slow
def test_db_seed_is_idempotent_from_the_command_line(fresh_database: Callable[[], str]) -> None:
    url = fresh_database()

    first = _arena("db", "seed", DATABASE_URL=url)
    second = _arena("db", "seed", DATABASE_URL=url)

    assert first.returncode == 0 and "4 new, 0 kept, 0 disabled" in first.stdout
    assert second.returncode == 0 and "0 new, 4 kept, 0 disabled" in second.stdout


def test_suite_list_and_run_from_the_command_line(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    suites = tmp_path / "suites"
    suites.mkdir()
    (suites / "tiny.yaml").write_text(
        "name: tiny\nprompts:\n  - prompt: Say hello.\n  - prompt: Say goodbye.\n"
    )
    (suites / "broken.yaml").write_text("name: broken\n")
    env = {
        "DATABASE_URL": fresh_database(),
        "ARENA_SUITES_DIR": str(suites),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_DATA_DIR": str(tmp_path / "data"),
    }

    listed = _arena("suite", "list", **env)
    ran = _arena("suite", "run", "tiny", **env)
    unknown = _arena("suite", "run", "nope", **env)

    assert listed.returncode == 0 and "tiny: 2 prompts" in listed.stdout
    assert "broken.yaml:1: prompts: Field required" in listed.stderr
    assert ran.returncode == 0, ran.stderr
    assert "done, 2 of 2 judged" in ran.stdout and "cost $" in ran.stdout
    assert unknown.returncode != 0 and "No suite is named 'nope'" in unknown.stderr
