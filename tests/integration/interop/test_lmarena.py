"""LMArena's battle format through the command line on a real database: ``arena import --from
lmarena`` (idempotent, dry runs, bad records, unknown models archived, ratings current after),
``arena export --format lmarena``, and the round trip: an arena's votes exported and imported
into an empty arena give the same leaderboard."""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable
from pathlib import Path

import asyncpg
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fixtures import prepare_database
from tests.integration.arena_harness import serve_arena
from tests.support import run_cli


def _dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


def _arena(url: str, tmp_path: Path, *args: str) -> subprocess.CompletedProcess[str]:
    data = str(tmp_path / "data")
    env = {"DATABASE_URL": url, "ARENA_ALLOW_DEV_SECRET": "1", "ARENA_DATA_DIR": data}
    return run_cli(args, env, timeout=300)  # type: ignore[no-any-return]


def _battle(n: int, a: str, b: str, winner: str, **extra: object) -> dict[str, object]:
    return {
        "question_id": f"q{n:04d}",
        "model_a": a,
        "model_b": b,
        "winner": winner,
        "judge": f"arena_user_{n % 7}",
        "turn": 1,
        "anony": True,
        "language": "English",
        "tstamp": 1_700_000_000 + 60 * n,
        **extra,
    }


async def _board(url: str) -> dict[str, tuple[float, float, float, int]]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        rows = await conn.fetch(
            "SELECT m.display_name, r.rating, r.ci_lower, r.ci_upper, r.games"
            " FROM model_ratings r JOIN models m ON m.id = r.model_id"
        )
    finally:
        await conn.close()
    return {r[0]: (r[1], r[2], r[3], r[4]) for r in rows}


async def _fetch(url: str, query: str) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        return await conn.fetch(query)
    finally:
        await conn.close()


async def test_an_lmarena_file_imports_once_with_its_models_archived_and_rated(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    url = prepare_database(fresh_database())
    names = ("gpt-4-0613", "claude-2.1", "vicuna-13b")
    winners = ("model_a", "model_b", "tie", "tie (bothbad)", "both_bad")
    battles = [
        _battle(n, names[n % 3], names[(n + 1) % 3], winners[n % 5], anony=n % 10 != 0)
        for n in range(60)
    ]
    battles[3]["conversation_a"] = [
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "4"},
        {"role": "user", "content": "And times 3?"},
        {"role": "assistant", "content": "12"},
    ]
    battles[3]["conversation_b"] = [
        {"role": "user", "content": "What is 2+2?"},
        {"role": "assistant", "content": "Four."},
        {"role": "user", "content": "And times 3?"},
        {"role": "assistant", "content": "Twelve."},
    ]
    lines = [json.dumps(b) for b in battles]
    lines.insert(10, "{not json")
    lines.insert(20, json.dumps(_battle(999, "x", "x", "model_a")))
    path = tmp_path / "battles.jsonl"
    path.write_text("\n".join(lines) + "\n")

    dry = _arena(url, tmp_path, "import", "--from", "lmarena", "--dry-run", str(path))
    untouched = await _fetch(url, "SELECT count(*) FROM preferences")
    first = _arena(url, tmp_path, "import", "--from", "lmarena", str(path))
    again = _arena(url, tmp_path, "import", "--from", "lmarena", str(path))

    assert dry.returncode == 1, dry.stderr  # two bad records
    assert "62 lmarena records read: 60 would import (60 human)" in dry.stdout
    assert "3 unknown models would be created archived" in dry.stdout
    assert "line 11: not JSON" in dry.stderr and "line 21" in dry.stderr
    assert untouched[0][0] == 0
    assert first.returncode == 1 and "60 imported" in first.stdout, first.stderr
    assert "62 lmarena records read: 0 imported, 60 already imported, 2 bad" in again.stdout
    votes = await _fetch(
        url,
        "SELECT p.vote, count(*) FROM preferences p GROUP BY 1 ORDER BY 1",
    )
    assert dict(votes) == {"both_bad": 24, "both_good": 12, "left": 12, "right": 12}
    models = await _fetch(url, "SELECT display_name, provider, status FROM models ORDER BY 1")
    assert [tuple(m) for m in models] == [(n, "imported", "archived") for n in sorted(names)]
    named = await _fetch(url, "SELECT count(*) FROM matchups WHERE mode = 'named'")
    assert named[0][0] == 6
    # The battle with text became a two-turn conversation voted on its second turn.
    turns = await _fetch(
        url,
        "SELECT t.turn_index, t.prompt, m.import_id, ra.content, rb.content, p.vote"
        " FROM turns t JOIN matchups m ON m.id = t.matchup_id"
        " JOIN responses ra ON ra.matchup_id = m.id AND ra.slot = 'A'"
        " JOIN responses rb ON rb.matchup_id = m.id AND rb.slot = 'B'"
        " LEFT JOIN preferences p ON p.matchup_id = m.id"
        " WHERE m.import_id LIKE 'q0003%' ORDER BY 1",
    )
    assert [tuple(t) for t in turns] == [
        (0, "What is 2+2?", "q0003", "4", "Four.", None),
        (1, "And times 3?", "q0003#1", "12", "Twelve.", "both_bad"),
    ]
    board = await _board(url)
    assert set(board) == set(names) and all(games > 0 for *_, games in board.values())


async def test_votes_exported_in_lmarena_format_import_into_an_empty_arena_with_the_same_board(
    db: AsyncEngine, database_url: str, fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    votes = ("left", "right", "both_good", "both_bad", "left", "left", "right")
    async with serve_arena(db, database_url, tmp_path) as arena:
        for n in range(35):
            _, frames = await arena.chat(prompt=f"Question {n}: why?", sessionId=f"s{n % 12}")
            await arena.vote(frames[0][1], votes[n % len(votes)])
        # A skip has no LMArena form: it is left out (in a session of its own, so that the
        # anomaly screen, which counts a session's skips too, sees the same sessions after).
        _, frames = await arena.chat(prompt="One more", sessionId="skipper")
        await arena.vote(frames[0][1], "skip")
    rated = _arena(database_url, tmp_path, "rate")
    exported = _arena(
        database_url,
        tmp_path,
        "export",
        "--format",
        "lmarena",
        "--include-text",
        "-o",
        str(tmp_path / "battles.jsonl"),
    )
    empty = prepare_database(fresh_database())
    imported = _arena(
        empty, tmp_path, "import", "--from", "lmarena", str(tmp_path / "battles.jsonl")
    )

    assert rated.returncode == 0, rated.stderr
    assert exported.returncode == 0 and "35 battles" in exported.stdout, exported.stderr
    records = [json.loads(line) for line in (tmp_path / "battles.jsonl").read_text().splitlines()]
    assert {r["winner"] for r in records} == {"model_a", "model_b", "tie", "tie (bothbad)"}
    first = records[0]
    assert first["turn"] == 1 and first["anony"] is True and first["method"] == "human"
    assert first["judge"].startswith("arena_user_") and "s0" not in first["judge"]
    assert first["conversation_a"][0] == {"role": "user", "content": "Question 0: why?"}
    assert first["conversation_a"][1]["role"] == "assistant"
    assert imported.returncode == 0 and "35 imported" in imported.stdout, imported.stderr
    before, after = await _board(database_url), await _board(empty)
    assert set(before) == set(after) and len(before) >= 2
    assert sum(games for *_, games in before.values()) == 2 * 35
    for name, (rating, lower, upper, games) in before.items():
        assert after[name][3] == games
        assert after[name][:3] == pytest.approx((rating, lower, upper), abs=1e-6), name
