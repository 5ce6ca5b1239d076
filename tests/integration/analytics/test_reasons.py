"""GET /api/arena/analytics/reasons: why people voted, counted for each decisive vote's winner,
beside its wins; in one slice of prompts too."""

from __future__ import annotations

import uuid
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from tests.integration import rows
from tests.integration.analytics._history import arena_of

NAMES = ("Alpha", "Beta", "Gamma")


async def _vote(
    conn: AsyncConnection,
    a: uuid.UUID,
    b: uuid.UUID,
    vote: str,
    reasons: list[str],
    **matchup: Any,
) -> None:
    low, high = sorted((a, b), key=lambda u: u.bytes)
    matchup_id = await rows.matchup(
        conn, low, high, slot_a_model_id=a, slot_b_model_id=b, **matchup
    )
    winner = {"left": a, "right": b}.get(vote)
    await rows.preference(conn, matchup_id, vote, winner_model_id=winner, reasons=reasons)


async def _history(db: AsyncEngine, m: dict[str, uuid.UUID]) -> None:
    alpha, beta, gamma = (m[name] for name in NAMES)
    async with db.begin() as conn:
        await _vote(conn, alpha, beta, "left", ["accuracy", "style"])
        await _vote(conn, beta, alpha, "right", ["accuracy"])
        await _vote(conn, alpha, gamma, "left", [])  # a win with no reason
        await _vote(conn, alpha, beta, "right", ["speed"], categories=["coding"])
        await _vote(conn, gamma, beta, "left", ["tone"])  # a reason no longer offered
        await _vote(conn, alpha, gamma, "both_good", ["safety"])  # no winner to count it for


async def test_each_reason_is_counted_for_the_winner_beside_its_wins(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, *NAMES) as (arena, m):
        await _history(db, m)

        body = (await arena.client.get("/api/arena/analytics/reasons")).json()

    offered = ["accuracy", "helpfulness", "style", "safety", "speed"]
    assert [r["id"] for r in body["reasons"]] == [*offered, "tone"]
    assert body["reasons"][0] == {"id": "accuracy", "label": "Accuracy"}
    assert body["votes"] == 5
    assert body["models"] == [
        {
            "id": str(m["Alpha"]),
            "displayName": "Alpha",
            "wins": 3,
            "explainedWins": 2,
            "counts": {"accuracy": 2, "style": 1},
        },
        {
            "id": str(m["Beta"]),
            "displayName": "Beta",
            "wins": 1,
            "explainedWins": 1,
            "counts": {"speed": 1},
        },
        {
            "id": str(m["Gamma"]),
            "displayName": "Gamma",
            "wins": 1,
            "explainedWins": 1,
            "counts": {"tone": 1},
        },
    ]
    assert body["undecided"] == {"safety": 1}


async def test_a_slice_of_prompts_counts_only_its_rounds(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, *NAMES) as (arena, m):
        await _history(db, m)

        body = (await arena.client.get("/api/arena/analytics/reasons?category=coding")).json()

    assert body["votes"] == 1 and body["undecided"] == {}
    assert [(x["displayName"], x["wins"], x["counts"]) for x in body["models"]] == [
        ("Beta", 1, {"speed": 1})
    ]


async def test_the_judges_votes_are_counted_apart_from_peoples(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, *NAMES) as (arena, m):
        await _history(db, m)

        judged = (await arena.client.get("/api/arena/analytics/reasons?votes=judge")).json()
        everyone = (await arena.client.get("/api/arena/analytics/reasons?votes=all")).json()

    assert (judged["votes"], judged["models"], judged["undecided"]) == (0, [], {})
    assert everyone["votes"] == 5


async def test_an_unknown_slice_is_a_400(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, *NAMES) as (arena, _):
        answer = await arena.client.get("/api/arena/analytics/reasons?category=poetry")

    assert answer.status_code == 400 and answer.json()["code"] == "invalid_request"
