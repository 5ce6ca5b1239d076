"""GET /api/arena/leaderboard: records, ratings, ranks by interval overlap, and the rating context.

Every expected number is worked out by hand from the rows each test inserts.
"""

from __future__ import annotations

import math
from datetime import UTC, datetime
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.analytics._history import answer, arena_of, cast_vote, disable, rate, round_

SCALE = 400 / math.log(10)
#: A third delta at the mean of two leaves their squared deviations and adds a vote.
THIRD = math.sqrt(2 / 3)


async def test_rows_carry_records_ratings_games_and_ranks_by_interval_overlap(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Overlapping intervals share a rank; ranks never cross components; an archived model keeps
    its row, marked, and its place among the ranks (its history is the board's)."""
    names = ("Alpha", "Beta", "Gamma", "Delta", "Epsilon", "Zeta")
    async with arena_of(db, database_url, tmp_path, *names) as (arena, m):
        async with db.begin() as conn:
            for _ in range(2):
                await round_(conn, m["Alpha"], m["Beta"], "left")  # Alpha wins twice
            await round_(conn, m["Beta"], m["Alpha"], "left")  # Beta wins once
            await round_(conn, m["Alpha"], m["Gamma"], "both_good")
            await round_(conn, m["Gamma"], m["Beta"], "skip")
            await round_(conn, m["Zeta"], m["Alpha"], "right")  # Alpha beats Zeta...
            await disable(conn, m["Zeta"])  # ...which is then archived
            await rate(conn, m["Alpha"], 1100, 20, games=5, style=1050)  # [1080, 1120]
            await rate(conn, m["Beta"], 1070, 20, games=3, style=1095)  # [1050, 1090]
            await rate(conn, m["Gamma"], 1000, 20, games=1)  # [980, 1020]
            await rate(conn, m["Delta"], 1200, 10, component=1, style=1200)
            await rate(conn, m["Zeta"], 1300, 5, games=1)  # [1295, 1305]: above all, archived

        board = (await arena.client.get("/api/arena/leaderboard")).json()

    rows = {row["displayName"]: row for row in board["models"]}
    assert [row["displayName"] for row in board["models"]] == [
        "Zeta",  # 1300, archived
        "Delta",  # 1200
        "Alpha",  # 1100
        "Beta",  # 1070
        "Gamma",  # 1000
        "Epsilon",  # unrated: last
    ]
    alpha = rows["Alpha"]
    assert (alpha["wins"], alpha["losses"], alpha["ties"], alpha["skips"]) == (3, 1, 1, 0)
    assert (alpha["totalVotes"], alpha["winRate"], alpha["games"]) == (5, 0.6, 5)
    assert alpha["confidenceInterval"] == {"lower": 1080, "upper": 1120}
    assert alpha["ratingStdError"] == pytest.approx(20 / 1.96)
    beta = rows["Beta"]
    assert (beta["wins"], beta["losses"], beta["skips"], beta["winRate"]) == (1, 2, 1, 0.3333)
    assert {name: row["status"] for name, row in rows.items()} == {
        "Zeta": "archived",
        **{name: "active" for name in ("Delta", "Alpha", "Beta", "Gamma", "Epsilon")},
    }
    # Zeta's interval lies wholly above every other of component 0: rank 1, and one above each.
    # Beta's upper bound 1090 is above Alpha's lower bound 1080: they overlap and share rank 2.
    # Gamma's upper bound 1020 is below Zeta's, Alpha's and Beta's lower bounds: rank 1 + 3.
    # Delta leads its own component.
    ranks = {name: rows[name]["rank"] for name in rows}
    assert ranks == {"Zeta": 1, "Delta": 1, "Alpha": 2, "Beta": 2, "Gamma": 4, "Epsilon": None}
    # Style intervals: Beta [1075, 1115] lies wholly above Alpha [1030, 1070].
    style_ranks = {name: rows[name]["styleControlledRank"] for name in rows}
    assert style_ranks == {
        "Zeta": None,
        "Delta": 1,
        "Alpha": 2,
        "Beta": 1,
        "Gamma": None,
        "Epsilon": None,
    }
    assert rows["Epsilon"]["rating"] is None and rows["Epsilon"]["games"] is None
    assert board["components"] == {
        "count": 2,
        "groups": [{"componentId": 0, "models": 4}, {"componentId": 1, "models": 1}],
    }


async def test_provisional_ratings_sort_below_settled_ones_with_their_reason_and_rank_range(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """One vote with a huge interval never heads the board: the rating is provisional."""
    names = ("Lucky", "Steady", "Broad", "Known", "Waiting")
    limits = {"ARENA_PROVISIONAL_VOTES": "10", "ARENA_PROVISIONAL_CI": "150"}
    async with arena_of(db, database_url, tmp_path, *names, **limits) as (arena, m):
        async with db.begin() as conn:
            await round_(conn, m["Lucky"], m["Steady"], "left")
            await rate(conn, m["Lucky"], 1400, 600, games=1)  # [800, 2000]: one lucky vote
            await rate(conn, m["Steady"], 1100, 40, games=50)  # [1060, 1140]
            await rate(conn, m["Broad"], 1050, 80, games=50)  # [970, 1130]: 160 > 150
            await rate(conn, m["Known"], 1000, 30, games=10)  # [970, 1030]: exactly 10 votes

        board = (await arena.client.get("/api/arena/leaderboard")).json()

    rows = [
        (r["displayName"], r["provisional"], r["provisionalReason"], r["rankRange"])
        for r in board["models"]
    ]
    assert rows == [
        ("Steady", False, None, {"best": 1, "worst": 3}),  # overlaps Lucky and Broad
        ("Known", False, None, {"best": 2, "worst": 4}),  # Steady lies wholly above it
        ("Lucky", True, "few_votes", {"best": 1, "worst": 4}),
        ("Broad", True, "wide_interval", {"best": 1, "worst": 4}),
        ("Waiting", True, "unrated", None),
    ]
    assert [r["rank"] for r in board["models"]] == [1, 2, 1, 1, None]


async def test_a_model_with_only_skips_has_an_empty_record_and_no_pairs(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        async with db.begin() as conn:
            await round_(conn, m["Gamma"], m["Alpha"], "skip")
            await round_(conn, m["Beta"], m["Gamma"], "skip")
            await round_(conn, m["Alpha"], m["Beta"], "right")

        board = (await arena.client.get("/api/arena/leaderboard")).json()
        pairs = (await arena.client.get("/api/arena/analytics/head-to-head")).json()["pairs"]
        summary = (await arena.client.get("/api/arena/analytics/summary")).json()
        metrics = (await arena.client.get("/api/arena/analytics/model-metrics")).json()

    gamma = next(row for row in board["models"] if row["displayName"] == "Gamma")
    assert (gamma["wins"], gamma["losses"], gamma["ties"], gamma["skips"]) == (0, 0, 0, 2)
    assert (gamma["totalVotes"], gamma["winRate"]) == (2, 0)
    assert [row["displayName"] for row in board["models"]] == ["Beta", "Alpha", "Gamma"]
    assert [(p["games"]) for p in pairs] == [1]
    assert str(m["Gamma"]) not in {pairs[0]["modelAId"], pairs[0]["modelBId"]}
    assert (summary["totalVotes"], summary["skipVotes"], summary["pairsSampled"]) == (3, 2, 1)
    gamma_metrics = next(x for x in metrics["models"] if x["displayName"] == "Gamma")
    assert (gamma_metrics["slotAGames"], gamma_metrics["slotBGames"]) == (0, 0)


async def test_style_control_restates_coefficients_in_points_per_unit(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """perUnit divides by the population standard deviation of the raw deltas over the usable
    non-skip votes, an archived model's too (the style pass fits them all); three qualify, the
    third at the mean of the first two, so each deviation is sqrt(2/3) of theirs."""
    earlier = datetime(2026, 7, 24, 8, 0, tzinfo=UTC)
    latest = datetime(2026, 7, 24, 9, 0, 0, 123000, tzinfo=UTC)
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        a, b, g = m["Alpha"], m["Beta"], m["Gamma"]
        async with db.begin() as conn:
            # Counted: deltas (A - B) tokens +200, markdown +0.2, ttft +100, duration +1000.
            first = await round_(conn, a, b, "left")
            await answer(conn, first, a, "A", tokens=300, markdown=0.3, ttft=200, duration=2000)
            await answer(conn, first, b, "B", tokens=100, markdown=0.1, ttft=100, duration=1000)
        async with db.begin() as conn:
            # Counted, vote stored before the answers: -200, 0.0, +100, -3000.
            second = await round_(conn, b, a)
            await cast_vote(conn, second, "both_bad", b, a)
        async with db.begin() as conn:
            await answer(conn, second, b, "A", tokens=100, markdown=0.2, ttft=300, duration=1000)
        async with db.begin() as conn:
            await answer(conn, second, a, "B", tokens=300, markdown=0.2, ttft=200, duration=4000)
        async with db.begin() as conn:
            skipped = await round_(conn, a, b, "skip")
            failed = await round_(conn, a, b, "left")
            no_ttft = await round_(conn, a, b, "right")
            archived = await round_(conn, a, g, "left")
            unvoted = await round_(conn, a, b)
            half = await round_(conn, a, b, "left")
            for matchup in (skipped, failed, no_ttft, unvoted, half):
                await answer(
                    conn, matchup, a, "A", tokens=9000, ttft=None if matchup == no_ttft else 1
                )
            for matchup in (skipped, no_ttft, unvoted):
                await answer(conn, matchup, b, "B", tokens=1)
            await answer(conn, failed, b, "B", error="timed out")
            # Counted, its model archived: 0, +0.1, +100, -1000 (the mean of the two above).
            await answer(conn, archived, a, "A", tokens=100, markdown=0.2, ttft=200, duration=1000)
            await answer(conn, archived, g, "B", tokens=100, markdown=0.1, ttft=100, duration=2000)
            await disable(conn, g)
            for feature, coefficient, at in (
                ("novelty", 0.4, earlier),
                ("latency_duration", 0.3, earlier),
                ("formatting", 0.2, earlier),
                ("verbosity", 0.1, latest),
                ("position", 0.05, earlier),
                ("latency_ttft", -0.1, earlier),
            ):
                await conn.execute(
                    text(
                        "INSERT INTO style_control_coefficients (feature, coefficient, computed_at)"
                        " VALUES (:f, :c, :t)"
                    ),
                    {"f": feature, "c": coefficient, "t": at},
                )

        style = (await arena.client.get("/api/arena/leaderboard")).json()["styleControl"]

    assert style["votesObserved"] == 3
    assert style["computedAt"] == "2026-07-24T09:00:00.123Z"
    effects = {e["feature"]: e for e in style["effects"]}
    assert [e["feature"] for e in style["effects"]] == [
        "position",
        "verbosity",
        "formatting",
        "latency_ttft",
        "latency_duration",
        "novelty",  # unknown to the server: last, per standard deviation, no unit
    ]
    assert effects["position"] == {
        "feature": "position",
        "logOdds": 0.05,
        "points": pytest.approx(0.05 * SCALE),
        "basis": "absolute",
        "perUnit": None,
    }
    # verbosity: deltas +200, -200 and 0, standard deviation 200 * sqrt(2/3) tokens.
    assert effects["verbosity"]["points"] == pytest.approx(0.1 * SCALE)
    assert effects["verbosity"]["basis"] == "per_std_dev"
    assert effects["verbosity"]["perUnit"] == {
        "points": pytest.approx(0.1 * SCALE / (200 * THIRD) * 100),
        "unit": "100 output tokens",
    }
    # formatting: +0.2, 0.0 and +0.1, mean 0.1, standard deviation 0.1 * sqrt(2/3).
    assert effects["formatting"]["perUnit"] == {
        "points": pytest.approx(0.2 * SCALE / (0.1 * THIRD) * 0.1),
        "unit": "0.1 markdown density",
    }
    # latency_ttft: +100 every time, no spread, no unit.
    assert effects["latency_ttft"]["perUnit"] is None
    assert effects["latency_ttft"]["points"] == pytest.approx(-0.1 * SCALE)
    # latency_duration: +1000, -3000 and -1000, standard deviation 2000 * sqrt(2/3) ms.
    assert effects["latency_duration"]["perUnit"] == {
        "points": pytest.approx(0.3 * SCALE / (2000 * THIRD) * 1000),
        "unit": "second of streaming",
    }
    assert effects["novelty"]["basis"] == "per_std_dev" and effects["novelty"]["perUnit"] is None
