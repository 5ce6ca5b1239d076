"""`arena serve` runs the rating process beside itself: votes become ratings without a command."""

from __future__ import annotations

import asyncio
from collections.abc import Callable
from pathlib import Path

import httpx
import pytest

from tests.support import ProductProcess, free_port, parse_sse

pytestmark = pytest.mark.slow


async def test_served_votes_are_rated_by_the_embedded_rating_process(
    fresh_database: Callable[[], str], tmp_path: Path
) -> None:
    env = {
        "DATABASE_URL": fresh_database(),
        "ARENA_DATA_DIR": str(tmp_path / "data"),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_MOCK_TOKENS_PER_SECOND": "0",
        "ARENA_MOCK_TOKENS": "4",
        "ARENA_RATING_WORKER": "embedded",
        "RATING_MIN_INTERVAL_S": "1",
    }
    product = ProductProcess(env, free_port(), tmp_path / "serve.log").start()
    try:
        async with httpx.AsyncClient(base_url=product.url, timeout=30) as client:
            for index in range(12):
                frames = parse_sse(
                    (await client.post("/api/arena/chat", json={"prompt": f"q{index}"})).text
                )
                started = frames[0][1]
                await client.post(
                    "/api/arena/vote",
                    json={
                        "matchupId": started["matchupId"],
                        "matchupToken": started["matchupToken"],
                        "vote": "left" if index % 3 else "right",
                    },
                )
            rated: list[object] = []
            for _ in range(120):
                board = (await client.get("/api/arena/leaderboard")).json()
                rated = [m for m in board["models"] if m["rating"] is not None]
                if rated:
                    break
                await asyncio.sleep(0.5)
    finally:
        assert product.stop() == 0

    assert rated, f"no rating within a minute:\n{(tmp_path / 'serve.log').read_text()[-2000:]}"
