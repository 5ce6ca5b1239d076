"""GET /metrics after real traffic, parsed by prometheus_client's own parser, checked against what
the traffic was."""

from __future__ import annotations

import math
from pathlib import Path

import httpx
import pytest
from prometheus_client.parser import text_string_to_metric_families
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_rating import RatingSettings, RatingWorker
from tests.integration.arena_harness import serve_arena

Samples = dict[tuple[str, frozenset[tuple[str, str]]], float]


def _samples(text: str) -> Samples:
    return {
        (sample.name, frozenset(sample.labels.items())): sample.value
        for family in text_string_to_metric_families(text)
        for sample in family.samples
    }


def _sum(
    samples: dict[tuple[str, frozenset[tuple[str, str]]], float], name: str, **labels: str
) -> float:
    wanted = set(labels.items())
    return sum(v for (n, ls), v in samples.items() if n == name and wanted <= set(ls))


async def votes_counted(client: httpx.AsyncClient) -> dict[tuple[str, str], float]:
    """``arena_votes_total`` from ``/metrics``, by (method, source), over the outcomes."""
    counted: dict[tuple[str, str], float] = {}
    for (name, labels), value in _samples((await client.get("/metrics")).text).items():
        if name == "arena_votes_total" and value:
            key = (dict(labels)["method"], dict(labels)["source"])
            counted[key] = counted.get(key, 0) + value
    return counted


async def test_metrics_count_what_the_traffic_did(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_RATE_LIMIT="4/minute") as arena:
        native = [await arena.chat() for _ in range(3)]
        agui = await arena.client.post(
            "/api/arena/chat?protocol=ag-ui", json={"prompt": "framed for AG-UI"}
        )
        refused, _ = await arena.chat()
        assert (await arena.vote(native[0][1][0][1], "left")).status_code == 200
        text = (await arena.client.get("/metrics")).text
        tokens = await arena.scalar("SELECT sum(output_token_count) FROM responses")
        prompt_tokens = await arena.scalar("SELECT sum(input_token_count) FROM responses")
        cost = await arena.scalar("SELECT sum(cost_usd) FROM responses")
        answers = await arena.scalar("SELECT count(*) FROM responses")

    samples = _samples(text)
    assert agui.status_code == 200 and refused.status_code == 429
    assert _sum(samples, "arena_rounds_total", mode="matchup", protocol="sse") == 3
    assert _sum(samples, "arena_rounds_total", protocol="ag-ui") == 1
    assert _sum(samples, "arena_votes_total", outcome="left", method="human", source="api") == 1
    assert _sum(samples, "arena_http_requests_total", route="/api/arena/chat", status="200") == 4
    assert _sum(samples, "arena_http_requests_total", route="/api/arena/chat", status="429") == 1
    assert _sum(samples, "arena_http_requests_total", route="/api/arena/vote", status="200") == 1
    assert _sum(samples, "arena_rate_limited_total", group="chat") == 1
    assert _sum(samples, "arena_time_to_first_token_seconds_count") == answers == 8
    assert _sum(samples, "arena_answer_duration_seconds_count") == answers
    assert _sum(samples, "arena_output_tokens_total") == tokens
    assert _sum(samples, "arena_input_tokens_total") == prompt_tokens > 0
    assert _sum(samples, "arena_cost_usd_total") == pytest.approx(float(cost)) and cost > 0
    assert _sum(samples, "arena_slot_errors_total") == 0
    models = {
        dict(labels)["model"] for (name, labels) in samples if name == "arena_output_tokens_total"
    }
    assert models and all(model.startswith("Mock ") for model in models)  # display names


async def test_metrics_export_what_the_rating_process_last_did(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        before = _samples((await arena.client.get("/metrics")).text)
        for _ in range(3):
            _, frames = await arena.chat()
            assert (await arena.vote(frames[0][1], "right")).status_code == 200
        # One round's answer gave its model away: its vote is left out, and counted.
        async with db.begin() as conn:
            await conn.execute(
                text(
                    "UPDATE responses SET names_itself = true "
                    "WHERE id = (SELECT id FROM responses ORDER BY id LIMIT 1)"
                )
            )
        report = await RatingWorker(db, RatingSettings()).run_pass()
        after = _samples((await arena.client.get("/metrics")).text)
        kept = await arena.scalar("SELECT count(*) FROM rating_passes")

    assert math.isnan(_sum(before, "arena_rating_last_fit_age_seconds"))  # no fit yet
    assert report.status == "rated" and kept == 1
    assert _sum(after, "arena_rating_pass_seconds") == pytest.approx(report.seconds)
    assert 0 <= _sum(after, "arena_rating_last_fit_age_seconds") < 60
    assert _sum(after, "arena_rating_votes_excluded") == report.votes_excluded == 0
    filtered = {
        dict(labels)["reason"]: value
        for (name, labels), value in after.items()
        if name == "arena_rating_votes_filtered"
    }
    assert filtered == {"identity_leak": 1, "duplicate_prompt": 0} and report.identity_leaks == 1


async def test_a_metrics_token_guards_the_endpoint(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    token = "metrics-token-0123456789"
    async with serve_arena(db, database_url, tmp_path, ARENA_METRICS_TOKEN=token) as arena:
        missing = await arena.client.get("/metrics")
        wrong = await arena.client.get("/metrics", headers={"authorization": "Bearer nope"})
        right = await arena.client.get("/metrics", headers={"authorization": f"Bearer {token}"})
        health = await arena.client.get("/health")

    assert missing.status_code == 401 and missing.json()["code"] == "unauthorized"
    assert wrong.status_code == 401
    assert right.status_code == 200 and "arena_rounds_total" in right.text
    assert health.status_code == 200
