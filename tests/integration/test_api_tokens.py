"""ARENA_API_TOKENS: every API route needs one of the tokens; /health stays open, /metrics has
its own; the OpenAI SDK's api_key is the bearer; AG-UI hears a refusal in-band."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import websockets
from openai import AsyncOpenAI, AuthenticationError
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import serve_arena

TOKEN = "api-token-0123456789abcdef"
OTHER = "second-token-0123456789ab"
ENV = {"ARENA_API_TOKENS": f"{TOKEN},{OTHER}"}


@pytest.mark.parametrize(
    ("headers", "status", "code"),
    [
        ({}, 401, "unauthorized"),
        ({"authorization": "Bearer wrong-token-0123456789"}, 401, "invalid_api_token"),
        ({"x-api-token": "wrong-token-0123456789"}, 401, "invalid_api_token"),
        ({"authorization": f"Bearer {TOKEN}"}, 200, None),
        ({"authorization": f"bearer {OTHER}"}, 200, None),
        ({"x-api-token": TOKEN}, 200, None),
    ],
)
async def test_the_api_answers_only_a_request_with_a_token(
    db: AsyncEngine,
    database_url: str,
    tmp_path: Path,
    headers: dict[str, str],
    status: int,
    code: str | None,
) -> None:
    async with serve_arena(db, database_url, tmp_path, **ENV) as arena:
        chat = await arena.client.post("/api/arena/chat", json={"prompt": "x"}, headers=headers)
        board = await arena.client.get("/api/arena/leaderboard", headers=headers)
        models = await arena.client.get("/v1/models", headers=headers)
        health = await arena.client.get("/health")
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    for answer in (chat, board, models):
        assert answer.status_code == status, answer.text[:200]
        if code is not None:
            assert answer.json()["code"] == code
            assert answer.headers["www-authenticate"] == "Bearer"
    assert health.status_code == 200
    assert stored == (1 if status == 200 else 0)


async def test_the_openai_sdk_api_key_is_the_bearer(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **ENV) as arena:
        good = AsyncOpenAI(base_url=arena.url + "/v1", api_key=TOKEN)
        bad = AsyncOpenAI(base_url=arena.url + "/v1", api_key="not-the-token-0123456789")
        listed = [m.id async for m in good.models.list()]
        stream = await good.chat.completions.create(
            model="arena-duel", stream=True, messages=[{"role": "user", "content": "hi"}]
        )
        text = "".join([c.choices[0].delta.content or "" async for c in stream if c.choices])
        with pytest.raises(AuthenticationError):
            await bad.models.list()

    assert "arena-duel" in listed and "Answer A" in text


async def test_an_ag_ui_client_hears_the_refusal_in_band(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **ENV) as arena:
        answer = await arena.client.post("/api/arena/chat?protocol=ag-ui", json={"prompt": "x"})

    assert answer.status_code == 200
    events = [json.loads(line[5:]) for line in answer.text.splitlines() if line.startswith("data:")]
    assert events[-1]["type"] == "RUN_ERROR" and events[-1]["code"] == "unauthorized"


async def test_the_control_socket_needs_a_token_too(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **ENV) as arena:
        url = arena.url.replace("http://", "ws://") + "/api/arena/control"
        with pytest.raises(websockets.InvalidStatus) as refused:
            async with websockets.connect(url):
                pass
        async with websockets.connect(url + f"?api_token={TOKEN}") as socket:
            await socket.send(json.dumps({"type": "stop", "matchupId": "not-a-uuid"}))
            reply = json.loads(await socket.recv())
        async with websockets.connect(url, additional_headers={"x-api-token": TOKEN}) as socket:
            await socket.send("{}")
            headed = json.loads(await socket.recv())

    assert refused.value.response.status_code == 401
    assert json.loads(refused.value.response.body)["code"] == "unauthorized"
    assert reply["type"] == "error" and headed["type"] == "error"  # answered: authenticated


async def test_the_rate_limit_counts_a_token_not_an_address(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {**ENV, "ARENA_RATE_LIMIT": "1/minute"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:

        async def chat(token: str) -> int:
            answer = await arena.client.post(
                "/api/arena/chat", json={"prompt": "x"}, headers={"x-api-token": token}
            )
            return answer.status_code

        statuses = [await chat(TOKEN), await chat(OTHER), await chat(TOKEN)]

    assert statuses == [200, 200, 429]
