"""GET /api/arena/analytics/model-metrics: pace percentiles, means, and the record per slot."""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.analytics._history import answer, arena_of, disable, round_


async def test_metrics_count_error_free_answers_and_decisive_votes_per_slot(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        a, b = m["Alpha"], m["Beta"]
        async with db.begin() as conn:
            rounds = [
                await round_(conn, a, b, "left"),  # Alpha wins in slot A
                await round_(conn, a, b, "right"),  # Alpha loses in slot A
                await round_(conn, b, a, "right"),  # Alpha wins in slot B
                await round_(conn, b, a, "both_good"),  # a tie: not a decisive game
                await round_(conn, a, b, "skip"),
            ]
            # Alpha's answers: TTFT 100, 250, 260 (one answer without), durations
            # 1000, 1050, 2500, 4000; a failed answer that must not count.
            await answer(conn, rounds[0], a, "A", ttft=100, duration=1000, tokens=10, markdown=0.1)
            await answer(conn, rounds[1], a, "A", ttft=250, duration=1050, tokens=20, markdown=0.2)
            await answer(conn, rounds[2], a, "B", ttft=260, duration=4000, tokens=30, markdown=0.3)
            await answer(conn, rounds[3], a, "B", ttft=None, duration=2500, tokens=40, markdown=0.4)
            await answer(conn, rounds[4], a, "A", ttft=5, duration=9999, tokens=999, error="boom")
            await disable(conn, m["Gamma"])

        body = (await arena.client.get("/api/arena/analytics/model-metrics")).json()

    alpha = next(x for x in body["models"] if x["displayName"] == "Alpha")
    # TTFT sorted [100, 250, 260]: p50 at position 1 -> 250; p90 at 1.8 -> 250 + 0.8 * 10.
    # Duration sorted [1000, 1050, 2500, 4000]: p50 at 1.5 -> 1050 + 0.5 * 1450 = 1775;
    # p90 at 2.7 -> 2500 + 0.7 * 1500 = 3550.
    assert alpha == {
        "id": str(a),
        "displayName": "Alpha",
        "responses": 4,
        "ttftMsP50": 250,
        "ttftMsP90": pytest.approx(258),
        "durationMsP50": pytest.approx(1775),
        "durationMsP90": pytest.approx(3550),
        "meanOutputTokens": pytest.approx(25),
        "meanMarkdownDensity": pytest.approx(0.25),
        "slotAWins": 1,
        "slotAGames": 2,
        "slotBWins": 1,
        "slotBGames": 1,
    }
    beta = next(x for x in body["models"] if x["displayName"] == "Beta")
    assert (beta["responses"], beta["ttftMsP50"], beta["meanOutputTokens"]) == (0, None, None)
    assert (beta["slotAWins"], beta["slotAGames"], beta["slotBWins"], beta["slotBGames"]) == (
        0,
        1,
        1,
        2,
    )
    assert [x["displayName"] for x in body["models"]] == ["Alpha", "Beta"]


async def test_percentiles_equal_postgresql_percentile_cont_over_the_raw_answers(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """Across many 100 ms buckets, repeated values and both metrics, the summary tables give
    exactly what ``percentile_cont`` gives on the answers themselves."""
    rng = random.Random(7)
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, m):
        a, b = m["Alpha"], m["Beta"]
        async with db.begin() as conn:
            for _ in range(157):
                matchup = await round_(conn, a, b)
                ttft = rng.choice([None, rng.randint(0, 3000), 100, 199, 200])
                await answer(conn, matchup, a, "A", ttft=ttft, duration=rng.randint(0, 40_000))
                await answer(conn, matchup, b, "B", ttft=rng.randint(0, 99), duration=42)

        body = (await arena.client.get("/api/arena/analytics/model-metrics")).json()
        expected = await arena.rows(
            "SELECT model_id, "
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY ttft_ms) AS t50, "
            "percentile_cont(0.9) WITHIN GROUP (ORDER BY ttft_ms) AS t90, "
            "percentile_cont(0.5) WITHIN GROUP (ORDER BY stream_duration_ms) AS d50, "
            "percentile_cont(0.9) WITHIN GROUP (ORDER BY stream_duration_ms) AS d90 "
            "FROM responses WHERE error IS NULL GROUP BY model_id"
        )

    got = {x["id"]: x for x in body["models"]}
    for row in expected:
        model = got[str(row.model_id)]
        assert model["ttftMsP50"] == pytest.approx(row.t50)
        assert model["ttftMsP90"] == pytest.approx(row.t90)
        assert model["durationMsP50"] == pytest.approx(row.d50)
        assert model["durationMsP90"] == pytest.approx(row.d90)
    assert got[str(b)]["durationMsP90"] == 42
