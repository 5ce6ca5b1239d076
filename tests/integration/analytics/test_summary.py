"""GET /api/arena/analytics/summary and /head-to-head over a history with a disabled model."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.analytics._history import arena_of, disable, rate, round_


async def _history(db: AsyncEngine, m: dict[str, object]) -> None:
    a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
    async with db.begin() as conn:
        await round_(conn, a, b, "left")  # Alpha wins from slot A
        await round_(conn, b, a, "right")  # Alpha wins from slot B
        await round_(conn, a, c, "both_good")
        await round_(conn, c, b, "both_bad")
        await round_(conn, a, b, "skip")
        await round_(conn, b, c)  # never voted on
        await round_(conn, a, b, mode="shadow")  # not votable
        await rate(conn, a, 1100, 20)
        await rate(conn, b, 1000, 20)
        await rate(conn, c, 900, 20, component=1)
        await disable(conn, c)  # Gamma leaves the roster; its history stays


async def test_summary_counts_every_stored_vote_and_the_enabled_roster(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        await _history(db, m)

        summary = (await arena.client.get("/api/arena/analytics/summary")).json()

    assert summary == {
        "totalMatchups": 7,
        "totalVotes": 5,
        "decisiveVotes": 2,
        "tieVotes": 2,
        "skipVotes": 1,
        "slotAWins": 1,
        "slotBWins": 1,
        "enabledModels": 2,
        # {Alpha, Beta}, {Alpha, Gamma}, {Beta, Gamma} have non-skip votes (as the seed counts:
        # any models), of which only {Alpha, Beta} is between enabled models.
        "pairsSampled": 3,
        "pairsPossible": 1,
        "enabledPairsSampled": 1,
        "ratingComponents": 2,  # every rated model, Gamma's component included
    }


async def test_head_to_head_keys_each_pair_by_the_smaller_id(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        await _history(db, m)

        body = (await arena.client.get("/api/arena/analytics/head-to-head")).json()

    alpha, beta, gamma = (str(m[name]) for name in ("Alpha", "Beta", "Gamma"))

    def pair(x: str, y: str, x_wins: int, y_wins: int, ties: int) -> dict[str, object]:
        if y < x:
            x, y, x_wins, y_wins = y, x, y_wins, x_wins
        games = x_wins + y_wins + ties
        return {
            "modelAId": x,
            "modelBId": y,
            "aWins": x_wins,
            "bWins": y_wins,
            "ties": ties,
            "games": games,
        }

    expected = [
        pair(alpha, beta, 2, 0, 0),  # the skip is not a game
        pair(alpha, gamma, 0, 0, 1),
        pair(beta, gamma, 0, 0, 1),
    ]
    assert body["pairs"] == sorted(expected, key=lambda p: (p["modelAId"], p["modelBId"]))
    assert body["models"] == [  # Gamma, disabled, is named since its pairs are listed
        {"id": alpha, "displayName": "Alpha"},
        {"id": beta, "displayName": "Beta"},
        {"id": gamma, "displayName": "Gamma"},
    ]
