"""SIGTERM drains `arena serve`: rounds in flight finish (or are stopped at the deadline with what
they produced stored), new ones get 503 `shutting_down`, and the process exits 0 in time,
leaving no PostgreSQL behind."""

from __future__ import annotations

import asyncio
import json
import signal
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import pytest

from arena_api.db.engine import embedded_postgres
from tests.support import ProductProcess, free_port, parse_sse

pytestmark = pytest.mark.slow


def _product(tmp_path: Path, grace_s: float, tokens: int, **env: str) -> ProductProcess:
    base = {
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "embedded",
        "ARENA_MOCK_TOKENS_PER_SECOND": "20",
        "ARENA_MOCK_TOKENS": str(tokens),
        "ARENA_SHUTDOWN_GRACE_S": str(grace_s),
    }
    return ProductProcess({**base, **env}, free_port(), tmp_path / "serve.log").start()


async def _stream(client: httpx.AsyncClient, started: asyncio.Queue[str]) -> list[str]:
    """One round read to its end: the names of its events, in order."""
    raw = ""
    async with client.stream("POST", "/api/arena/chat", json={"prompt": "long"}) as response:
        assert response.status_code == 200
        async for chunk in response.aiter_text():
            if not raw:
                started.put_nowait("")
            raw += chunk
    return [event for event, _ in parse_sse(raw)]


async def _drain_while_rounds_run(
    product: ProductProcess, rounds: int
) -> tuple[list[list[str]], httpx.Response, dict[str, Any], float]:
    """Start ``rounds`` rounds, send SIGTERM, and watch: (each round's events, a new chat
    request's answer during the drain, /health during the drain, seconds to exit)."""
    assert product.process is not None
    async with httpx.AsyncClient(base_url=product.url, timeout=60) as client:
        started: asyncio.Queue[str] = asyncio.Queue()
        streams = [asyncio.create_task(_stream(client, started)) for _ in range(rounds)]
        for _ in range(rounds):
            await asyncio.wait_for(started.get(), 30)
        product.process.send_signal(signal.SIGTERM)
        signalled = time.monotonic()
        health: dict[str, Any] = {}
        for _ in range(100):
            answer = await client.get("/health")
            health = answer.json()
            if health["status"] == "shutting_down":
                assert answer.status_code == 503
                break
            await asyncio.sleep(0.05)
        refused = await client.post("/api/arena/chat", json={"prompt": "too late"})
        events = await asyncio.gather(*streams)
    status = await asyncio.to_thread(product.process.wait, 60)
    assert status == 0, product.log.read_text()[-3000:]
    return events, refused, health, time.monotonic() - signalled


def _postgres_left(data: Path) -> list[str]:
    """Command lines of running processes that serve ``data``'s embedded PostgreSQL."""
    left = []
    for proc in Path("/proc").iterdir():
        try:
            cmdline = (proc / "cmdline").read_bytes().replace(b"\0", b" ").decode()
        except OSError:
            continue
        if "postgres" in cmdline and str(data.resolve()) in cmdline:
            left.append(cmdline)
    return left


async def test_sigterm_lets_rounds_in_flight_finish_and_refuses_new_ones(
    tmp_path: Path, fresh_database: Callable[[], str]
) -> None:
    url = fresh_database()
    product = _product(tmp_path, grace_s=20, tokens=60, DATABASE_URL=url)  # 3 s per answer

    events, refused, health, took = await _drain_while_rounds_run(product, rounds=20)

    assert health["status"] == "shutting_down"
    assert refused.status_code == 503 and refused.json()["code"] == "shutting_down"
    assert all(e[0] == "matchup_started" and e[-1] == "matchup_done" for e in events)
    assert all("slot_error" not in e for e in events)
    assert took < 20 + 5
    conn = await asyncpg.connect(url)
    try:
        matchups = await conn.fetchval("SELECT count(*) FROM matchups")
        answers = await conn.fetch("SELECT error, length(content) AS size FROM responses")
    finally:
        await conn.close()
    assert matchups == 20
    assert len(answers) == 40 and all(a["error"] is None and a["size"] > 0 for a in answers)


async def test_rounds_cut_at_the_deadline_are_stored_as_stopped_and_no_postgres_is_left(
    tmp_path: Path,
) -> None:
    product = _product(tmp_path, grace_s=2, tokens=400)  # 20 s per answer, embedded database

    events, refused, _, took = await _drain_while_rounds_run(product, rounds=5)

    assert refused.status_code == 503 and refused.json()["code"] == "shutting_down"
    assert all(e[0] == "matchup_started" and e[-1] == "matchup_done" for e in events)
    assert took < 2 + 5
    data = tmp_path / "data"
    assert _postgres_left(data) == []
    with embedded_postgres(data) as pg:
        conn = await asyncpg.connect(pg.url)
        try:
            answers = await conn.fetch("SELECT error, content FROM responses")
            matchups = await conn.fetchval("SELECT count(*) FROM matchups")
        finally:
            await conn.close()
    assert matchups == 5 and len(answers) == 10
    assert all(a["error"] == "stopped" and a["content"] for a in answers), json.dumps(
        [dict(a) for a in answers], default=str
    )[:500]
