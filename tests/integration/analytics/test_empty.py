"""On a database with no votes (or no models at all) every read answers a well-formed empty body."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.analytics._history import arena_of

_NO_MODELS: dict[str, dict[str, Any]] = {
    "/api/arena/leaderboard": {
        "components": {"count": None, "groups": []},
        "styleControl": {"effects": [], "votesObserved": 0, "computedAt": None},
        "models": [],
        "namedVotes": "excluded",
        "votes": "human",
        "category": None,
        "filters": "on",
        "filteredVotes": None,
    },
    "/api/arena/analytics/summary": {
        "totalMatchups": 0,
        "totalVotes": 0,
        "decisiveVotes": 0,
        "tieVotes": 0,
        "skipVotes": 0,
        "slotAWins": 0,
        "slotBWins": 0,
        "enabledModels": 0,
        "pairsSampled": 0,
        "pairsPossible": 0,
        "ratingComponents": None,
        "enabledPairsSampled": 0,
    },
    "/api/arena/analytics/head-to-head": {"models": [], "pairs": []},
    "/api/arena/analytics/model-metrics": {"models": []},
    "/api/arena/analytics/activity": {
        "bucket": "day",
        "models": [],
        "votes": [],
        "cumulativeGames": [],
    },
    "/api/arena/analytics/activity?bucket=hour": {
        "bucket": "hour",
        "models": [],
        "votes": [],
        "cumulativeGames": [],
    },
    "/api/arena/analytics/style-control": {"coefficients": [], "models": []},
    "/api/arena/analytics/rating-history": {"models": [], "points": []},
}


@pytest.mark.parametrize("path", list(_NO_MODELS), ids=lambda p: p.rsplit("/", 1)[-1])
async def test_every_read_answers_an_empty_body_without_models(
    db: AsyncEngine, database_url: str, tmp_path: Path, path: str
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha") as (arena, _):
        async with db.begin() as conn:
            await conn.execute(text("DELETE FROM models"))

        response = await arena.client.get(path)

    assert response.status_code == 200
    assert response.json() == _NO_MODELS[path]


async def test_models_without_votes_are_listed_with_zero_records_and_null_pace(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, ids):
        board = (await arena.client.get("/api/arena/leaderboard")).json()
        summary = (await arena.client.get("/api/arena/analytics/summary")).json()
        metrics = (await arena.client.get("/api/arena/analytics/model-metrics")).json()
        pairs = (await arena.client.get("/api/arena/analytics/head-to-head")).json()

    assert [m["displayName"] for m in board["models"]] == ["Alpha", "Beta"]
    for row in board["models"]:
        assert (row["wins"], row["totalVotes"], row["winRate"], row["rank"]) == (0, 0, 0, None)
    assert (summary["enabledModels"], summary["pairsPossible"], summary["totalVotes"]) == (2, 1, 0)
    assert metrics["models"][0] == {
        "id": str(ids["Alpha"]),
        "displayName": "Alpha",
        "responses": 0,
        "ttftMsP50": None,
        "ttftMsP90": None,
        "durationMsP50": None,
        "durationMsP90": None,
        "meanOutputTokens": None,
        "meanMarkdownDensity": None,
        "slotAWins": 0,
        "slotAGames": 0,
        "slotBWins": 0,
        "slotBGames": 0,
    }
    assert pairs == {
        "models": [
            {"id": str(ids["Alpha"]), "displayName": "Alpha"},
            {"id": str(ids["Beta"]), "displayName": "Beta"},
        ],
        "pairs": [],
    }
