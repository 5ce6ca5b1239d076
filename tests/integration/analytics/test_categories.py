"""``?category=`` on the leaderboard and every analytics read, and ``?filters=off``: each number
worked out by hand from the rows the test inserts, through the real HTTP server."""

from __future__ import annotations

from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_rating import RatingSettings, RatingWorker
from tests.integration import rows
from tests.integration.analytics._history import answer, arena_of, round_
from tests.integration.arena_harness import Arena


async def _get(arena: Arena, path: str, **params: str) -> dict[str, Any]:
    response = await arena.client.get(path, params=params)
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


_READS = (
    "/api/arena/leaderboard",
    "/api/arena/analytics/summary",
    "/api/arena/analytics/head-to-head",
    "/api/arena/analytics/model-metrics",
    "/api/arena/analytics/activity",
    "/api/arena/analytics/style-control",
    "/api/arena/analytics/rating-history",
)
# /api/arena/analytics/categories lists the slices; it takes no ``category``.


async def test_every_vote_read_cuts_to_a_category_or_a_language(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
        async with db.begin() as conn:
            coding = {"categories": ["coding"], "language": "en"}
            both = {"categories": ["coding", "math"], "language": "de"}
            await round_(conn, a, b, "left", **coding)  # coding: Alpha beats Beta
            await round_(conn, b, a, "left", **both)  # coding, math: Beta beats Alpha
            await round_(conn, a, c, "both_good", **coding)  # coding: a tie
            await round_(conn, c, a, "skip", **coding)  # coding: a skip
            await round_(conn, a, b, None, **coding)  # coding: a matchup without a vote
            await round_(conn, b, c, "right")  # unclassified: Gamma beats Beta
            await round_(conn, b, c, "right", categories=[], language="und")  # no slice
            # The backfill classifies the unclassified round: it moves into math.
            await conn.execute(
                text(
                    "UPDATE matchups SET categories = '{math}', language = 'fr' "
                    "WHERE categories IS NULL"
                )
            )
            # A board for the coding slice, as the rating process writes it.
            await conn.execute(
                text(
                    "INSERT INTO model_population_ratings (population, model_id, rating, "
                    "rating_stderr, ci_lower, ci_upper, component_id, games) VALUES "
                    "('category:coding', :a, 1010, 5, 1000, 1020, 0, 3), "
                    "('category:coding', :b, 990, 5, 980, 1000, 0, 2)"
                ),
                {"a": a, "b": b},
            )

        board = await _get(arena, "/api/arena/leaderboard", category="coding")
        summary = await _get(arena, "/api/arena/analytics/summary", category="coding")
        math = await _get(arena, "/api/arena/analytics/head-to-head", category="math")
        german = await _get(arena, "/api/arena/analytics/head-to-head", category="language:de")
        metrics = await _get(arena, "/api/arena/analytics/model-metrics", category="coding")
        activity = await _get(arena, "/api/arena/analytics/activity", category="math")
        style = await _get(arena, "/api/arena/analytics/style-control", category="coding")
        everything = await _get(arena, "/api/arena/analytics/summary")
        slices = await _get(arena, "/api/arena/analytics/categories")

    rows = {r["displayName"]: r for r in board["models"]}
    assert board["category"] == "coding"
    assert [r["displayName"] for r in board["models"]] == ["Alpha", "Beta", "Gamma"]
    assert (rows["Alpha"]["wins"], rows["Alpha"]["losses"], rows["Alpha"]["ties"]) == (1, 1, 1)
    assert (rows["Alpha"]["skips"], rows["Alpha"]["rating"]) == (1, 1010)
    assert (rows["Beta"]["wins"], rows["Beta"]["losses"], rows["Beta"]["rating"]) == (1, 1, 990)
    assert (rows["Gamma"]["ties"], rows["Gamma"]["skips"], rows["Gamma"]["rating"]) == (1, 1, None)

    assert (summary["totalMatchups"], summary["totalVotes"]) == (5, 4)
    assert (summary["decisiveVotes"], summary["tieVotes"], summary["skipVotes"]) == (2, 1, 1)
    assert (summary["slotAWins"], summary["pairsSampled"]) == (2, 2)
    assert summary["ratingComponents"] == 1
    assert (everything["totalMatchups"], everything["totalVotes"]) == (7, 6)

    # math: the round with both categories (Beta beat Alpha) and the backfilled one.
    pairs = {(p["modelAId"], p["modelBId"]): p for p in math["pairs"]}
    assert sum(p["games"] for p in pairs.values()) == 2
    assert [p["games"] for p in german["pairs"]] == [1]

    alpha = next(r for r in metrics["models"] if r["displayName"] == "Alpha")
    assert (alpha["slotAWins"], alpha["slotAGames"], alpha["slotBGames"]) == (1, 1, 1)
    assert sum(v["total"] for v in activity["votes"]) == 2
    assert style == {"coefficients": [], "models": []}
    assert [(c["category"], c["votes"], c["rated"]) for c in slices["categories"]] == [
        ("coding", 4, True),
        ("language:en", 3, False),
        ("math", 2, False),
        ("language:de", 1, False),
        ("language:fr", 1, False),
    ]


async def test_a_bad_category_or_filters_value_is_a_400_naming_it(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, _):
        for path in _READS:
            for bad in ("cooking", "language:", "language:EN", "coding,math", ""):
                response = await arena.client.get(path, params={"category": bad})
                assert response.status_code == 400, (path, bad)
                body = response.json()
                assert body["code"] == "invalid_request" and "category" in body["details"]
        for params in (
            {"filters": "maybe"},
            {"filters": "off", "votes": "judge"},
            {"filters": "off", "category": "coding"},
            {"filters": "off", "include": "named"},
            {"include": "named", "category": "coding"},
        ):
            response = await arena.client.get("/api/arena/leaderboard", params=params)
            assert response.status_code == 400, params
            assert response.json()["code"] == "invalid_request"


@pytest.mark.parametrize("filters", ["on", "off"])
async def test_filters_off_shows_the_board_with_the_filtered_votes_kept(
    db: AsyncEngine, database_url: str, tmp_path: Path, filters: str
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, m):
        async with db.begin() as conn:
            for _ in range(3):
                matchup = await round_(conn, m["Alpha"], m["Beta"], "left")
            await answer(conn, matchup, m["Alpha"], "A")
            await conn.execute(text("UPDATE responses SET names_itself = true"))
        await RatingWorker(db, RatingSettings()).run_pass()
        board = await arena.client.get("/api/arena/leaderboard", params={"filters": filters})
        body = board.json()

    games = {r["displayName"]: r["games"] for r in body["models"]}
    assert body["filters"] == filters
    assert body["filteredVotes"] == {
        "anomalousSessions": 0,
        "identityLeaks": 1,
        "duplicatePrompts": 0,
    }
    assert games == ({"Alpha": 2, "Beta": 2} if filters == "on" else {"Alpha": 3, "Beta": 3})


async def test_answer_statistics_and_cost_cut_to_a_slice(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Percentiles, means and spend of the coding rounds' answers only; a backfilled round's
    answers move with it."""
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, m):
        a, b = m["Alpha"], m["Beta"]
        async with db.begin() as conn:
            for ttft, tokens, cats in (
                (100, 10, ["coding"]),
                (300, 30, ["coding"]),
                (900, 90, ["math"]),  # not coding
                (500, 50, None),  # unclassified until the backfill below makes it coding
            ):
                matchup = await round_(conn, a, b, "left", categories=cats, language="en")
                await rows.response(
                    conn,
                    matchup,
                    a,
                    "A",
                    ttft_ms=ttft,
                    stream_duration_ms=2 * ttft,
                    latency_ms=2 * ttft,
                    output_token_count=tokens,
                    cost_usd=Decimal(tokens) / 1000,
                )
                await answer(conn, matchup, b, "B", ttft=50, tokens=5, error="failed")
            await conn.execute(
                text("UPDATE matchups SET categories = '{coding}' WHERE categories IS NULL")
            )

        metrics = await _get(arena, "/api/arena/analytics/model-metrics", category="coding")
        cost = await _get(arena, "/api/arena/analytics/cost", category="coding")
        english = await _get(arena, "/api/arena/analytics/cost", category="language:en")

    alpha = next(r for r in metrics["models"] if r["displayName"] == "Alpha")
    beta = next(r for r in metrics["models"] if r["displayName"] == "Beta")
    # Alpha's coding answers: TTFT 100, 300, 500 (the backfilled one); Beta's all failed.
    assert (alpha["responses"], alpha["ttftMsP50"], alpha["durationMsP50"]) == (3, 300, 600)
    assert alpha["ttftMsP90"] == pytest.approx(460)  # 300 + 0.8 * (500 - 300)
    assert alpha["meanOutputTokens"] == pytest.approx(30)
    assert (beta["responses"], beta["ttftMsP50"]) == (0, None)
    spend = {c["displayName"]: c for c in cost["models"]}
    assert spend["Alpha"]["costUsd"] == pytest.approx(0.09)  # (10 + 30 + 50) / 1000
    assert spend["Alpha"]["responses"] == 3 and spend["Beta"]["responses"] == 3
    assert english["total"]["responses"] == 8
