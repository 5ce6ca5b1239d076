"""GET /api/arena/analytics/style-control and /rating-history: the rating rows, as read."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.ports import pair_key
from arena_api.db.analytics import PostgresAnalytics
from arena_api.db.repository import PostgresRepository, create_pool
from tests.integration.analytics._history import arena_of, disable, rate, round_

T1 = datetime(2026, 7, 20, 9, 0, tzinfo=UTC)
T2 = datetime(2026, 7, 21, 9, 0, tzinfo=UTC)


async def test_style_control_lists_coefficients_and_models_rated_by_both_passes(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    names = ("Alpha", "Beta", "Gamma", "Delta")
    async with arena_of(db, database_url, tmp_path, *names) as (arena, m):
        async with db.begin() as conn:
            await rate(conn, m["Alpha"], 1100, 20, style=1050)
            await rate(conn, m["Beta"], 1200, 20, style=1150)
            await rate(conn, m["Gamma"], 1300, 20)  # no style-controlled rating
            await rate(conn, m["Delta"], 1400, 20, style=1400)
            await disable(conn, m["Delta"])  # archived: its ratings stay, as on the board
            for feature, value in (("verbosity", 0.284), ("position", 0.05), ("formatting", -0.1)):
                await conn.execute(
                    text(
                        "INSERT INTO style_control_coefficients (feature, coefficient, computed_at)"
                        " VALUES (:f, :c, :t)"
                    ),
                    {"f": feature, "c": value, "t": T1},
                )

        body = (await arena.client.get("/api/arena/analytics/style-control")).json()

    at = "2026-07-20T09:00:00.000Z"
    assert body == {
        "coefficients": [
            {"feature": "formatting", "coefficient": -0.1, "computedAt": at},
            {"feature": "position", "coefficient": 0.05, "computedAt": at},
            {"feature": "verbosity", "coefficient": 0.284, "computedAt": at},
        ],
        "models": [
            {
                "id": str(m["Delta"]),
                "displayName": "Delta",
                "rating": 1400,
                "styleControlledRating": 1400,
            },
            {
                "id": str(m["Beta"]),
                "displayName": "Beta",
                "rating": 1200,
                "styleControlledRating": 1150,
            },
            {
                "id": str(m["Alpha"]),
                "displayName": "Alpha",
                "rating": 1100,
                "styleControlledRating": 1050,
            },
        ],
    }


async def _history(db: AsyncEngine, m: dict[str, object]) -> None:
    async with db.begin() as conn:
        for at, model, rating in (
            (T1, m["Alpha"], 1010.5),
            (T1, m["Beta"], 990.0),
            (T1, m["Zeta"], 1001.0),
            (T2, m["Beta"], 995.0),
            (T2, m["Alpha"], 1020.0),
        ):
            await conn.execute(
                text(
                    "INSERT INTO model_rating_history (model_id, rating, rating_stderr, ci_lower, "
                    "ci_upper, component_id, games, computed_at) "
                    "VALUES (:m, CAST(:r AS float8), 10, CAST(:r AS float8) - 19.6, "
                    "CAST(:r AS float8) + 19.6, 0, 12, :t)"
                ),
                {"m": model, "r": rating, "t": at},
            )
        await disable(conn, m["Zeta"])


async def test_rating_history_orders_points_by_time_then_model_id(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma", "Zeta") as (
        arena,
        m,
    ):
        await _history(db, m)

        body = (await arena.client.get("/api/arena/analytics/rating-history")).json()

    def point(model: str, rating: float, at: str) -> dict[str, object]:
        return {
            "modelId": str(m[model]),
            "rating": rating,
            "ciLower": pytest.approx(rating - 19.6),
            "ciUpper": pytest.approx(rating + 19.6),
            "games": 12,
            "computedAt": at,
        }

    first = sorted(
        [
            point("Alpha", 1010.5, "2026-07-20T09:00:00.000Z"),
            point("Beta", 990.0, "2026-07-20T09:00:00.000Z"),
            point("Zeta", 1001.0, "2026-07-20T09:00:00.000Z"),
        ],
        key=lambda p: str(p["modelId"]),
    )
    second = sorted(
        [
            point("Alpha", 1020.0, "2026-07-21T09:00:00.000Z"),
            point("Beta", 995.0, "2026-07-21T09:00:00.000Z"),
        ],
        key=lambda p: str(p["modelId"]),
    )
    assert body["points"] == first + second  # a disabled model's old points stay
    assert body["models"] == [  # the enabled roster, with or without points, and Zeta's name
        {"id": str(m["Alpha"]), "displayName": "Alpha"},
        {"id": str(m["Beta"]), "displayName": "Beta"},
        {"id": str(m["Gamma"]), "displayName": "Gamma"},
        {"id": str(m["Zeta"]), "displayName": "Zeta"},
    ]


@pytest.mark.parametrize(
    ("params", "expected"),
    [
        pytest.param({"since": "2026-07-21T09:00:00Z"}, 2, id="at-a-refit-includes-it"),
        pytest.param({"since": "2026-07-21T11:00:00+02:00"}, 2, id="same-instant-other-offset"),
        pytest.param({"since": "2026-07-21T09:00:00.001Z"}, 0, id="just-after"),
        pytest.param({"since": "2999-01-01T00:00:00Z"}, 0, id="in-the-future"),
        pytest.param({"since": "2000-01-01T00:00:00Z"}, 5, id="long-ago"),
        pytest.param({"points": "1"}, 2, id="one-point-keeps-the-newest-refit"),
        pytest.param({"points": "2"}, 5, id="two-points"),
        pytest.param({"since": "2026-07-21T09:00:00Z", "points": "5"}, 2, id="since-and-points"),
    ],
)
async def test_rating_history_since_and_points_select_the_snapshots(
    db: AsyncEngine, database_url: str, tmp_path: Path, params: dict[str, str], expected: int
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Zeta") as (arena, m):
        await _history(db, m)

        response = await arena.client.get("/api/arena/analytics/rating-history", params=params)

    assert response.status_code == 200
    assert len(response.json()["points"]) == expected


async def test_rating_history_rejects_since_without_a_timezone(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha") as (arena, _):
        response = await arena.client.get(
            "/api/arena/analytics/rating-history", params={"since": "2026-07-21T09:00:00"}
        )

    assert response.status_code == 400
    assert response.json()["details"] == {"since": ["needs a timezone, e.g. Z"]}


async def test_a_thinned_rating_history_keeps_the_last_refit_of_each_span(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    refits = [T1 + timedelta(minutes=5 * i) for i in range(1000)]
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (_, m):
        async with db.begin() as conn:
            await conn.execute(
                text(
                    "INSERT INTO model_rating_history (model_id, rating, rating_stderr, ci_lower, "
                    "ci_upper, component_id, games, computed_at) "
                    "SELECT model, i, 10, i - 19.6, i + 19.6, 0, 12, "
                    "       CAST(:t0 AS timestamptz) + i * interval '5 minutes' "
                    "  FROM generate_series(0, 999) AS i, "
                    "       unnest(ARRAY[CAST(:a AS uuid), CAST(:b AS uuid)]) AS model"
                ),
                {"t0": T1, "a": m["Alpha"], "b": m["Beta"]},
            )
        analytics = PostgresAnalytics(db)
        whole = await analytics.rating_history(None)
        thinned = await analytics.rating_history(None, points=50)
        recent = await analytics.rating_history(refits[900], points=10)
        one = await analytics.rating_history(None, points=1)

    assert len(whole.points) == 2000
    # 1,000 evenly spaced refits in 50 spans: every 20th refit, each with both models' points
    assert [p.computed_at for p in thinned.points[::2]] == refits[19::20]
    assert [p.model_id for p in thinned.points[:2]] == sorted([str(m["Alpha"]), str(m["Beta"])])
    assert [p.computed_at for p in recent.points[::2]] == refits[909::10]
    assert {p.computed_at for p in one.points} == {refits[-1]}


@pytest.mark.parametrize("points", ["0", "10001", "many", "1.5", ""])
async def test_rating_history_refuses_a_bad_points(
    db: AsyncEngine, database_url: str, tmp_path: Path, points: str
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha") as (arena, _):
        response = await arena.client.get(
            "/api/arena/analytics/rating-history", params={"points": points}
        )

    assert response.status_code == 400
    assert list(response.json()["details"]) == ["points"]


async def test_the_matchmakers_snapshot_holds_people_s_pair_games_and_each_rating(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """What the smart matchmaker weighs: games and points per pair (people's votes only, skips
    not games, a tie half a point, whichever slot each model had) and each rated model's
    rating and interval width, from the summary tables."""
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
        async with db.begin() as conn:
            await round_(conn, a, b, "left")
            await round_(conn, b, a, "both_bad")
            await round_(conn, b, a, "right")
            await round_(conn, a, c, "skip")
            await rate(conn, a, 1100, 20)
            await rate(conn, b, 950, 35)
        pool = await create_pool(database_url)
        try:
            snapshot = await PostgresRepository(db, pool, snapshot_ttl_s=0).snapshot()
        finally:
            await pool.close()

    assert snapshot.games == {pair_key(a, b): 3}
    # Alpha won twice and tied once: 2.5 points of 3, Beta 0.5; the key's first model is scored.
    assert snapshot.points == {pair_key(a, b): 2.5 if pair_key(a, b)[0] == a else 0.5}
    assert snapshot.rating == {a: 1100, b: 950}
    assert snapshot.ci_width == {a: 40, b: 70}
