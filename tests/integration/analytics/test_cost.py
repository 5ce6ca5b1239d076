"""What answers cost: stored per answer from the provider's usage and the roster's prices, and
``GET /api/arena/analytics/cost`` by model and UTC day, week or month."""

from __future__ import annotations

import asyncio
from datetime import UTC, datetime
from decimal import Decimal
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.roster import Price, Roster, RosterModel
from tests.fakes._recording import Recorder
from tests.fakes.openai_server import OK_OUTPUT_TOKENS, PROMPT_TOKENS, create_app
from tests.integration import rows
from tests.integration.analytics._history import arena_of, round_
from tests.integration.arena_harness import serve_arena
from tests.support import ServerThread, free_port

PRICE = Price(input=Decimal("2.5"), output=Decimal("10"))


def _roster() -> Roster:
    return Roster(
        models=(
            RosterModel(
                display_name="Priced", provider="openai", provider_model_id="p--ok", price=PRICE
            ),
            RosterModel(display_name="Unpriced", provider="openai", provider_model_id="u--ok"),
            RosterModel(
                display_name="Broken",
                provider="openai",
                provider_model_id="b--server-error",
                price=PRICE,
            ),
        )
    )


async def test_each_answer_stores_its_reported_tokens_and_cost_and_the_report_adds_up(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=_roster(),
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_MOCK_PROVIDER="0",
        ) as arena:
            for _ in range(9):
                response, _ = await asyncio.wait_for(arena.chat(), timeout=20)
                assert response.status_code == 200
            stored = {
                r.display_name: r
                for r in await arena.rows(
                    "SELECT m.display_name, count(*) AS n, sum(r.input_token_count) AS input, "
                    "sum(r.output_token_count) AS output, sum(r.cost_usd) AS cost, "
                    "bool_and(r.input_token_source = 'provider') AS reported, "
                    "bool_and(r.cost_usd IS NULL) AS unpriced "
                    "FROM responses r JOIN models m ON m.id = r.model_id GROUP BY 1"
                )
            }
            report = (await arena.client.get("/api/arena/analytics/cost")).json()

    priced, unpriced, broken = stored["Priced"], stored["Unpriced"], stored["Broken"]
    one_answer = (PROMPT_TOKENS * PRICE.input + OK_OUTPUT_TOKENS * PRICE.output) / 1_000_000
    assert (priced.input, priced.output) == (priced.n * PROMPT_TOKENS, priced.n * OK_OUTPUT_TOKENS)
    assert priced.reported and priced.cost == priced.n * one_answer
    assert unpriced.unpriced and unpriced.output == unpriced.n * OK_OUTPUT_TOKENS
    # Failed before its first token: providers bill nothing, so it cost nothing.
    assert (broken.input, broken.output, broken.cost) == (0, 0, 0)

    by_name = {m["displayName"]: m for m in report["models"]}
    assert report["currency"] == "USD" and report["bucket"] == "day"
    assert by_name["Priced"]["costUsd"] == pytest.approx(float(priced.cost))
    assert by_name["Priced"]["pricedResponses"] == by_name["Priced"]["responses"] == priced.n
    assert by_name["Unpriced"]["pricedResponses"] == 0
    assert by_name["Unpriced"]["costUsd"] == 0
    assert by_name["Broken"]["responses"] == broken.n
    assert report["total"]["responses"] == 18
    assert report["total"]["costUsd"] == pytest.approx(float(priced.cost))
    assert [m["displayName"] for m in report["models"]][0] == "Priced"  # dearest first


def _at(text_: str) -> datetime:
    return datetime.fromisoformat(text_).astimezone(UTC)


async def _spend(conn: Any, model: Any, other: Any, at: str, cost: str | None, **more: Any) -> None:
    matchup = await round_(conn, model, other)
    await rows.response(
        conn,
        matchup,
        model,
        "A",
        **{
            "created_at": _at(at),
            "input_token_count": 100,
            "input_token_source": "provider",
            "output_token_count": 10,
            "token_count_source": "provider",
            "cost_usd": None if cost is None else Decimal(cost),
            **more,
        },
    )


async def test_the_report_splits_at_midnight_utc_and_filters_by_since(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, m):
        a, b = m["Alpha"], m["Beta"]
        async with db.begin() as conn:
            await _spend(conn, a, b, "2026-07-20T23:59:59+00:00", "0.25")
            # 01:30 in UTC+2 is 23:30 UTC on the 20th.
            await _spend(conn, a, b, "2026-07-21T01:30:00+02:00", "0.5")
            await _spend(conn, a, b, "2026-07-21T00:00:00+00:00", "1")
            await _spend(
                conn, b, a, "2026-07-27T12:00:00+00:00", "2", token_count_source="estimated"
            )
            await _spend(conn, b, a, "2026-08-02T12:00:00+00:00", None)
        daily = (await arena.client.get("/api/arena/analytics/cost?bucket=day")).json()
        weekly = (await arena.client.get("/api/arena/analytics/cost?bucket=week")).json()
        monthly = (await arena.client.get("/api/arena/analytics/cost?bucket=month")).json()
        since = (
            await arena.client.get(
                "/api/arena/analytics/cost", params={"since": "2026-07-21T18:00:00Z"}
            )
        ).json()

    alpha, beta = str(a), str(b)
    assert [(p["bucketStart"], p["modelId"], p["costUsd"]) for p in daily["series"]] == [
        ("2026-07-20T00:00:00.000Z", alpha, 0.75),
        ("2026-07-21T00:00:00.000Z", alpha, 1.0),
        ("2026-07-27T00:00:00.000Z", beta, 2.0),
        ("2026-08-02T00:00:00.000Z", beta, 0.0),
    ]
    # ISO weeks start on Monday: 20 July 2026 is a Monday, 27 July the next.
    assert [(p["bucketStart"], p["costUsd"]) for p in weekly["series"]] == [
        ("2026-07-20T00:00:00.000Z", 1.75),
        ("2026-07-27T00:00:00.000Z", 2.0),
    ]
    assert [(p["bucketStart"], p["responses"]) for p in monthly["series"]] == [
        ("2026-07-01T00:00:00.000Z", 3),
        ("2026-07-01T00:00:00.000Z", 1),
        ("2026-08-01T00:00:00.000Z", 1),
    ]
    assert daily["total"] == {
        "responses": 5,
        "pricedResponses": 4,
        "estimatedResponses": 1,
        "inputTokens": 500,
        "outputTokens": 50,
        "costUsd": 3.75,
    }
    assert [(m["displayName"], m["costUsd"]) for m in daily["models"]] == [
        ("Beta", 2.0),
        ("Alpha", 1.75),
    ]
    assert since["since"] == "2026-07-21T18:00:00.000Z"
    assert [p["costUsd"] for p in since["series"]] == [1.0, 2.0, 0.0]  # from the 21st's answers


@pytest.mark.parametrize(
    ("query", "field"),
    [
        pytest.param("bucket=hour", "bucket", id="hourly-is-not-offered"),
        pytest.param("bucket=", "bucket", id="empty-bucket"),
        pytest.param("since=yesterday", "since", id="since-not-iso"),
        pytest.param("since=2026-07-21T00:00:00", "since", id="since-without-timezone"),
    ],
)
async def test_a_bad_query_is_a_400_naming_the_parameter(
    db: AsyncEngine, database_url: str, tmp_path: Path, query: str, field: str
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, _):
        answer = await arena.client.get(f"/api/arena/analytics/cost?{query}")

    assert answer.status_code == 400
    assert answer.json()["code"] == "invalid_request" and field in answer.json()["details"]


async def test_an_empty_arena_reports_zero_spend(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta") as (arena, _):
        body = (await arena.client.get("/api/arena/analytics/cost")).json()

    assert body["models"] == [] and body["series"] == []
    assert body["total"]["costUsd"] == 0 and body["total"]["responses"] == 0
