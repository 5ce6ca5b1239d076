"""Why a vote, over HTTP: the offered reasons, a vote's reasons stored, echoed and exported, and
reasons the arena does not offer refused with nothing stored."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path
from typing import Any

import pyarrow.parquet as pq
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.support import run_cli

TOKEN = "reasons-token-0123456789abcdef"
AUTH = {"authorization": f"Bearer {TOKEN}"}


async def _started(arena: Arena, prompt: str = "Explain JWTs") -> dict[str, Any]:
    response = await arena.client.post(
        "/api/arena/chat", json={"prompt": prompt, "sessionId": "me"}, headers=AUTH
    )
    assert response.status_code == 200, response.text
    started: dict[str, Any] = json.loads(response.text.split("data: ", 1)[1].split("\n", 1)[0])
    return started


async def _vote(arena: Arena, started: dict[str, Any], vote: str, **extra: Any) -> Any:
    body = {"matchupId": started["matchupId"], "matchupToken": started["matchupToken"]}
    return await arena.client.post(
        "/api/arena/vote", json={**body, "vote": vote, **extra}, headers=AUTH
    )


def _export(tmp_path: Path, database_url: str, *args: str) -> subprocess.CompletedProcess[str]:
    data = str(tmp_path / "data")
    env = {"DATABASE_URL": database_url, "ARENA_ALLOW_DEV_SECRET": "1", "ARENA_DATA_DIR": data}
    return run_cli(("export", *args), env)  # type: ignore[no-any-return]


async def test_the_offered_reasons_are_listed_for_clients_to_render_as_chips(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_VOTE_REASONS": "correctness,follows-format"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        answer = await arena.client.get("/api/arena/vote-reasons")

    assert answer.status_code == 200
    assert answer.json() == {
        "reasons": [
            {"id": "correctness", "label": "Correctness"},
            {"id": "follows-format", "label": "Follows format"},
        ]
    }


async def test_a_votes_reasons_are_stored_echoed_and_exported_as_json_lines_and_parquet(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        explained = await _started(arena, "Q explained")
        plain = await _started(arena, "Q plain")
        reveal = await _vote(arena, explained, "right", reasons=["speed", "accuracy"])
        seed_body = await _vote(arena, plain, "left")
        stored = await arena.rows("SELECT vote, reasons FROM preferences ORDER BY created_at")
        exported = await arena.client.get("/api/arena/export", headers=AUTH)
    parquet = _export(tmp_path, database_url, "--format", "parquet", "-o", str(tmp_path / "v.pq"))

    assert reveal.status_code == 200 and reveal.json()["reasons"] == ["accuracy", "speed"]
    assert seed_body.status_code == 200 and seed_body.json()["reasons"] == []
    assert [(r.vote, r.reasons) for r in stored] == [
        ("right", ["accuracy", "speed"]),
        ("left", []),
    ]
    rows = [json.loads(line) for line in exported.text.splitlines()]
    assert [r["reasons"] for r in rows] == [["accuracy", "speed"], []]
    assert parquet.returncode == 0, parquet.stderr
    table = pq.read_table(tmp_path / "v.pq")
    assert table.column("reasons").to_pylist() == [["accuracy", "speed"], []]


@pytest.mark.parametrize(
    ("reasons", "code"),
    [
        pytest.param(["accuracy", "vibes"], "invalid_reasons", id="unknown"),
        pytest.param(["style", "style"], "invalid_reasons", id="duplicate"),
        pytest.param(["speed"] * 6, "invalid_reasons", id="too-many"),
        pytest.param("accuracy", "invalid_request", id="not-a-list"),
        pytest.param([3], "invalid_request", id="not-text"),
    ],
)
async def test_reasons_the_arena_does_not_offer_are_a_400_and_store_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path, reasons: object, code: str
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_API_TOKENS=TOKEN) as arena:
        started = await _started(arena)

        refused = await _vote(arena, started, "left", reasons=reasons)

        stored = await arena.rows("SELECT count(*) AS n FROM preferences")
        retried = await _vote(arena, started, "left", reasons=["style"])
    assert refused.status_code == 400 and refused.json()["code"] == code
    assert all(field.startswith("reasons") for field in refused.json()["details"])
    assert stored[0].n == 0
    assert retried.status_code == 200 and retried.json()["reasons"] == ["style"]


async def test_with_no_reasons_offered_any_reason_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_API_TOKENS": TOKEN, "ARENA_VOTE_REASONS": ""}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        listed = await arena.client.get("/api/arena/vote-reasons", headers=AUTH)
        started = await _started(arena)

        refused = await _vote(arena, started, "left", reasons=["accuracy"])

    assert listed.json() == {"reasons": []}
    assert refused.status_code == 400 and refused.json()["code"] == "invalid_reasons"
