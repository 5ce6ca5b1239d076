"""`arena` refuses to start on a bad configuration with one line, before serving anything; only
the commands that sign vote tokens (or name sessions with the token secret) look for a secret,
and `-o -` writes to standard output."""

from __future__ import annotations

import io
import json
import socket
import subprocess
from collections.abc import Callable
from pathlib import Path

import pyarrow.parquet as pq
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.export import EXPORT_COLUMNS
from tests.integration.arena_harness import serve_arena
from tests.support import ROOT, free_port, run_cli

API_TOKEN = "cli-export-token-0123456789"


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env)  # type: ignore[no-any-return]


def _arena_bytes(*args: str, **env: str) -> subprocess.CompletedProcess[bytes]:
    return run_cli(args, env, text=False)  # type: ignore[no-any-return]


def test_serve_without_a_token_secret_stops_with_one_line(tmp_path: Path) -> None:
    result = _arena("serve", PORT="1", ARENA_DATA_DIR=str(tmp_path))

    assert result.returncode == 2
    assert result.stderr.strip().splitlines() == [
        "arena: invalid setting MATCHUP_TOKEN_SECRET='': required (at least 16 characters) "
        "unless ARENA_ALLOW_DEV_SECRET=1"
    ]


def test_serve_on_a_port_in_use_stops_with_one_line(tmp_path: Path) -> None:
    """The server shares its port (SO_REUSEPORT): a second one would answer half the requests
    of the first from another database."""
    with socket.create_server(("127.0.0.1", 0)) as taken:
        port = taken.getsockname()[1]
        result = _arena(
            "serve",
            PORT=str(port),
            HOST="127.0.0.1",
            ARENA_DATA_DIR=str(tmp_path),
            ARENA_ALLOW_DEV_SECRET="1",
        )

    assert result.returncode == 1
    assert result.stderr.strip().splitlines() == [
        f"arena: port {port} is in use (Address already in use): is another arena serving "
        "there? Stop it, or set PORT"
    ]
    assert not (tmp_path / "pgdata").exists()  # nothing was started


@pytest.mark.slow
def test_serve_with_an_unknown_default_model_stops_with_one_line(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    result = _arena(
        "serve",
        DATABASE_URL=fresh_database(),
        ARENA_DATA_DIR=str(tmp_path),
        ARENA_ALLOW_DEV_SECRET="1",
        ARENA_MOCK_PROVIDER="1",
        ARENA_TRIGGER="manual",
        ARENA_DEFAULT_MODEL="gpt-nope",
        PORT=str(free_port()),
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

    assert first.returncode == 0 and "4 new, 0 kept, 0 archived" in first.stdout
    assert second.returncode == 0 and "0 new, 4 kept, 0 archived" in second.stdout


@pytest.mark.slow
def test_models_list_and_set_status_until_the_file_says_otherwise(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    url = fresh_database()
    roster = tmp_path / "models.yaml"
    roster.write_text(
        "models:\n"
        "  - {display_name: Kept, provider: mock, provider_model_id: kept}\n"
        "  - {display_name: Resting, provider: mock, provider_model_id: resting, "
        "enabled: false}\n"
        "  - {display_name: Gone, provider: mock, provider_model_id: gone}\n"
    )
    assert _arena("db", "seed", "--file", str(roster), DATABASE_URL=url).returncode == 0
    roster.write_text(
        "models:\n"
        "  - {display_name: Kept, provider: mock, provider_model_id: kept}\n"
        "  - {display_name: Resting, provider: mock, provider_model_id: resting, "
        "status: paused}\n"
    )
    reseeded = _arena("db", "seed", "--file", str(roster), DATABASE_URL=url)

    paused = _arena("models", "set-status", "Kept", "paused", DATABASE_URL=url)
    listed = _arena("models", "list", DATABASE_URL=url)
    unknown = _arena("models", "set-status", "Nobody", "active", DATABASE_URL=url)
    bad = _arena("models", "set-status", "Kept", "retired", DATABASE_URL=url)
    again = _arena("db", "seed", "--file", str(roster), DATABASE_URL=url)
    after = _arena("models", "list", DATABASE_URL=url)

    assert reseeded.returncode == 0 and "0 new, 2 kept, 1 archived" in reseeded.stdout
    assert paused.returncode == 0 and "Kept (" in paused.stdout
    assert paused.stdout.rstrip().endswith("active -> paused")
    statuses = [line.split()[0] + " " + line.split()[-1] for line in listed.stdout.splitlines()]
    assert statuses == ["archived Gone", "paused Kept", "paused Resting"]
    assert unknown.returncode == 2 and "no model is 'Nobody'" in unknown.stderr
    assert bad.returncode == 2 and "retired" in bad.stderr
    # The file lists Kept with no status: active again at the next seed.
    assert again.returncode == 0
    assert [line.split()[0] for line in after.stdout.splitlines()] == [
        "active",
        "archived",
        "paused",
    ]


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


@pytest.mark.parametrize(
    "args",
    [
        pytest.param(("settings",), id="settings"),
        pytest.param(("db", "upgrade"), id="db-upgrade"),
        pytest.param(("db", "seed"), id="db-seed"),
        pytest.param(("rate",), id="rate"),
        pytest.param(("suite", "list"), id="suite-list"),
    ],
)
def test_commands_that_sign_nothing_need_no_secret_even_in_production(
    args: tuple[str, ...], fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    url = fresh_database()
    _arena("db", "upgrade", DATABASE_URL=url)

    result = _arena(*args, DATABASE_URL=url, ARENA_ENV="production", ARENA_DATA_DIR=str(tmp_path))

    assert result.returncode == 0, result.stderr
    assert not list(tmp_path.iterdir())  # no secret was made up either


async def test_an_export_beside_make_run_names_sessions_as_its_server_does(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    development = {"MATCHUP_TOKEN_SECRET": "", "ARENA_ALLOW_DEV_SECRET": "1"}  # as `make run`
    async with serve_arena(
        db, database_url, tmp_path, ARENA_API_TOKENS=API_TOKEN, **development
    ) as arena:
        arena.client.headers["authorization"] = f"Bearer {API_TOKEN}"
        for voter in ("ann", "bob", "ann"):
            _, frames = await arena.chat(prompt=f"hello from {voter}", sessionId=voter)
            await arena.vote(frames[0][1])
        served = await arena.client.get("/api/arena/export")

    # Another shell of the same checkout: no secret, no ARENA_ALLOW_DEV_SECRET.
    exported = _arena("export", "-o", "-", DATABASE_URL=database_url, ARENA_DATA_DIR=str(data))

    assert exported.returncode == 0, exported.stderr
    sessions = [json.loads(line)["session"] for line in exported.stdout.splitlines()]
    assert sessions == [json.loads(line)["session"] for line in served.text.splitlines()]
    assert len(set(sessions)) == 2 and sessions[0] == sessions[2] != "ann"


async def test_export_to_standard_output_keeps_the_messages_out_of_the_data(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        for n in range(3):
            _, frames = await arena.chat(prompt=f"question {n}")
            await arena.vote(frames[0][1], "right")
    env = {"DATABASE_URL": database_url, "ARENA_EXPORT_SALT": "s" * 16}

    jsonl = _arena_bytes("export", "-o", "-", **env)
    parquet = _arena_bytes("export", "--format", "parquet", "--output", "-", **env)

    assert jsonl.returncode == 0, jsonl.stderr
    rows = [json.loads(line) for line in jsonl.stdout.decode().splitlines()]
    assert [r["outcome"] for r in rows] == ["right"] * 3 and list(rows[0]) == list(EXPORT_COLUMNS)
    assert b"exporting votes" in jsonl.stderr
    assert b"arena: 3 votes written to standard output" in jsonl.stderr
    assert parquet.returncode == 0, parquet.stderr
    assert pq.read_table(io.BytesIO(parquet.stdout)).num_rows == 3
    assert not (ROOT / "-").exists()


def test_a_production_export_needs_the_servers_secret_or_a_salt(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    url = fresh_database()
    kept = tmp_path / "matchup-token-secret"  # as the container keeps it in /data
    kept.write_text("k" * 64 + "\n")
    env = {"DATABASE_URL": url, "ARENA_ENV": "production", "ARENA_DATA_DIR": str(tmp_path)}

    bare = _arena("export", "-o", "-", **env)
    from_file = _arena("export", "-o", "-", MATCHUP_TOKEN_SECRET_FILE=str(kept), **env)
    salted = _arena("export", "-o", "-", ARENA_EXPORT_SALT="s" * 16, **env)

    assert bare.returncode == 2
    [line] = bare.stderr.strip().splitlines()
    assert line.startswith("arena: invalid setting MATCHUP_TOKEN_SECRET=''")
    assert "MATCHUP_TOKEN_SECRET_FILE" in line and "ARENA_EXPORT_SALT" in line
    assert from_file.returncode == 0, from_file.stderr
    assert salted.returncode == 0, salted.stderr
