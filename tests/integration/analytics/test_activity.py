"""GET /api/arena/analytics/activity: votes per UTC day or hour, cumulative games, ``since``."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.analytics._history import arena_of, disable, round_
from tests.integration.arena_harness import Arena


def _at(text_: str) -> datetime:
    return datetime.fromisoformat(text_).astimezone(UTC)


@contextlib.asynccontextmanager
async def _history(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Arena, dict[str, str]]]:
    """Five votes around midnight UTC of 20/21 July and one on the 22nd; Gamma later disabled."""
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (arena, m):
        a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
        async with db.begin() as conn:
            await round_(conn, a, b, "left", at=_at("2026-07-20T23:30:00+00:00"))
            await round_(conn, a, c, "skip", at=_at("2026-07-20T23:59:59.999+00:00"))
            await round_(conn, b, c, "right", at=_at("2026-07-21T00:00:00+00:00"))
            # 02:30 in UTC+2 is 00:30 UTC: the 21st, whatever the writer's time zone.
            await round_(conn, a, b, "both_good", at=_at("2026-07-21T02:30:00+02:00"))
            await round_(conn, a, c, "both_bad", at=_at("2026-07-22T10:15:00+00:00"))
            await disable(conn, c)
        yield arena, {name: str(model) for name, model in m.items()}


def _votes(start: str, **counts: int) -> dict[str, Any]:
    row = {"bucketStart": start, "left": 0, "right": 0, "bothGood": 0, "bothBad": 0, "skip": 0}
    row.update(counts)
    row["total"] = sum(counts.values())
    return row


async def test_daily_buckets_split_at_midnight_utc_and_games_accumulate(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _history(db, database_url, tmp_path) as (arena, m):
        body = (await arena.client.get("/api/arena/analytics/activity?bucket=day")).json()

    a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
    assert body["bucket"] == "day"
    # The enabled models and the disabled one the games name: every key has its name.
    assert body["models"] == [
        {"id": a, "displayName": "Alpha"},
        {"id": b, "displayName": "Beta"},
        {"id": c, "displayName": "Gamma"},
    ]
    assert body["votes"] == [
        _votes("2026-07-20T00:00:00.000Z", left=1, skip=1),
        _votes("2026-07-21T00:00:00.000Z", right=1, bothGood=1),
        _votes("2026-07-22T00:00:00.000Z", bothBad=1),
    ]
    # Skips are not games; Gamma keeps its games after being disabled.
    assert body["cumulativeGames"] == [
        {"bucketStart": "2026-07-20T00:00:00.000Z", "games": {a: 1, b: 1}},
        {"bucketStart": "2026-07-21T00:00:00.000Z", "games": {a: 2, b: 3, c: 1}},
        {"bucketStart": "2026-07-22T00:00:00.000Z", "games": {a: 3, b: 3, c: 2}},
    ]


async def test_hourly_buckets_and_since_keep_whole_buckets_with_running_totals(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _history(db, database_url, tmp_path) as (arena, m):
        hourly = (await arena.client.get("/api/arena/analytics/activity?bucket=hour")).json()
        since_midnight = (
            await arena.client.get(
                "/api/arena/analytics/activity",
                params={"bucket": "day", "since": "2026-07-21T00:00:00Z"},
            )
        ).json()
        # Mid-day: the 21st's bucket started before it, so only whole buckets after it remain.
        since_noon = (
            await arena.client.get(
                "/api/arena/analytics/activity",
                params={"bucket": "day", "since": "2026-07-21T14:00:00+02:00"},
            )
        ).json()
        future = (
            await arena.client.get(
                "/api/arena/analytics/activity", params={"since": "2999-01-01T00:00:00Z"}
            )
        ).json()

    a, b, c = m["Alpha"], m["Beta"], m["Gamma"]
    assert hourly["votes"] == [
        _votes("2026-07-20T23:00:00.000Z", left=1, skip=1),
        _votes("2026-07-21T00:00:00.000Z", right=1, bothGood=1),
        _votes("2026-07-22T10:00:00.000Z", bothBad=1),
    ]
    assert [x["bucketStart"] for x in since_midnight["votes"]] == [
        "2026-07-21T00:00:00.000Z",
        "2026-07-22T00:00:00.000Z",
    ]
    assert since_midnight["cumulativeGames"][0]["games"] == {a: 2, b: 3, c: 1}  # counts the 20th
    assert since_noon["cumulativeGames"] == [
        {"bucketStart": "2026-07-22T00:00:00.000Z", "games": {a: 3, b: 3, c: 2}}
    ]
    assert (future["votes"], future["cumulativeGames"]) == ([], [])
    # The enabled roster either way; disabled Gamma is named only where its games are listed.
    assert future["models"] == [x for x in hourly["models"] if x["id"] != c]


async def test_buckets_are_utc_whatever_the_database_time_zone(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """With the server's sessions in UTC+05:30, days and hours still start at UTC boundaries."""
    database = make_url(database_url).database
    async with db.begin() as conn:
        await conn.execute(text(f"ALTER DATABASE \"{database}\" SET timezone = 'Asia/Kolkata'"))
    try:
        async with _history(db, database_url, tmp_path) as (arena, _):
            days = (await arena.client.get("/api/arena/analytics/activity")).json()
            fresh = await asyncpg.connect("postgresql://" + database_url.partition("://")[2])
            zone = await fresh.fetchval("SELECT current_setting('TimeZone')")
            await fresh.close()
    finally:
        async with db.begin() as conn:
            await conn.execute(text(f'ALTER DATABASE "{database}" RESET timezone'))

    assert zone == "Asia/Kolkata"  # a fresh connection, as the server's are
    assert [x["bucketStart"] for x in days["votes"]] == [
        "2026-07-20T00:00:00.000Z",
        "2026-07-21T00:00:00.000Z",
        "2026-07-22T00:00:00.000Z",
    ]


@pytest.mark.parametrize(
    ("query", "field"),
    [
        pytest.param({"bucket": "week"}, "bucket", id="unknown-bucket"),
        pytest.param({"bucket": ""}, "bucket", id="empty-bucket"),
        pytest.param({"since": "yesterday"}, "since", id="not-a-timestamp"),
        pytest.param({"since": "2026-07-21T00:00:00"}, "since", id="no-timezone"),
        pytest.param({"since": "2026-07-21"}, "since", id="a-date"),
        pytest.param({"since": ""}, "since", id="empty-since"),
    ],
)
async def test_a_bad_parameter_is_a_400_naming_it(
    db: AsyncEngine, database_url: str, tmp_path: Path, query: dict[str, str], field: str
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, _):
        response = await arena.client.get("/api/arena/analytics/activity", params=query)

    body = response.json()
    assert response.status_code == 400
    assert body["code"] == "invalid_request" and list(body["details"]) == [field]


async def test_an_unencoded_plus_in_since_is_read_as_an_offset(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with _history(db, database_url, tmp_path) as (arena, _):
        raw = "/api/arena/analytics/activity?bucket=day&since=2026-07-21T02:00:00+02:00"
        response = await arena.client.get(raw)

    assert response.status_code == 200
    assert response.json()["votes"][0]["bucketStart"] == "2026-07-21T00:00:00.000Z"
