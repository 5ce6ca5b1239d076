"""ARENA_RATE_LIMIT on the real server: 429 with Retry-After, per client, forwarded addresses
only from a trusted proxy."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import serve_arena


async def test_past_the_limit_a_round_is_a_429_with_an_honest_retry_after(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_RATE_LIMIT="2/minute") as arena:
        first, frames = await arena.chat()
        second, _ = await arena.chat()
        third, _ = await arena.chat()
        openai = await arena.client.post(
            "/v1/chat/completions",
            json={
                "model": "arena-duel",
                "stream": True,
                "messages": [{"role": "user", "content": "x"}],
            },
        )
        vote = await arena.vote(frames[0][1])
        health = await arena.client.get("/health")
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert (first.status_code, second.status_code) == (200, 200)
    assert third.status_code == 429 and openai.status_code == 429
    assert third.json()["code"] == "rate_limited"
    assert 1 <= int(third.headers["retry-after"]) <= 60
    assert third.json()["details"] == {"limit": ["2/minute"]}
    assert vote.status_code == 200  # votes count against a budget of their own
    assert health.status_code == 200
    assert stored == 2  # a refused request stores nothing


async def test_behind_a_trusted_proxy_each_forwarded_client_has_its_own_budget(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_RATE_LIMIT": "1/minute", "ARENA_TRUST_PROXY": "127.0.0.1"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:

        async def chat_as(address: str) -> int:
            answer = await arena.client.post(
                "/api/arena/chat", json={"prompt": "x"}, headers={"x-forwarded-for": address}
            )
            return answer.status_code

        statuses = [await chat_as(a) for a in ("203.0.113.1", "203.0.113.2", "203.0.113.1")]

    assert statuses == [200, 200, 429]


async def test_an_untrusted_peer_cannot_dodge_the_limit_with_forwarded_headers(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_RATE_LIMIT="1/minute") as arena:
        statuses = [
            (
                await arena.client.post(
                    "/api/arena/chat", json={"prompt": "x"}, headers={"x-forwarded-for": address}
                )
            ).status_code
            for address in ("203.0.113.1", "203.0.113.2")
        ]

    assert statuses == [200, 429]
