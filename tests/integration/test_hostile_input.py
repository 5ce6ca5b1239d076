"""Hostile bodies get a clear 4xx, never a 500: nesting bombs on every JSON route."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import websockets
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import serve_arena

ROUTES = ("/api/arena/chat", "/api/arena/vote", "/v1/chat/completions", "/chat/completions")
BOMBS = {
    "arrays": b"[" * 100_000,
    "objects": b'{"a":' * 50_000 + b"1" + b"}" * 50_000,
    "in-a-field": b'{"prompt": "hi", "extra": ' + b"[" * 100_000 + b"]" * 100_000 + b"}",
}


@pytest.mark.parametrize("bomb", list(BOMBS))
async def test_a_nesting_bomb_is_a_400_invalid_json_on_every_json_route(
    db: AsyncEngine, database_url: str, tmp_path: Path, bomb: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        answers = [
            await arena.client.post(
                route, content=BOMBS[bomb], headers={"content-type": "application/json"}
            )
            for route in ROUTES
        ]
        agui = await arena.client.post(
            "/api/arena/chat",
            content=BOMBS[bomb],
            headers={"content-type": "application/json", "accept": "application/vnd.ag-ui+json"},
        )
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    for route, answer in zip(ROUTES, answers, strict=True):
        assert answer.status_code == 400, (route, answer.text[:200])
        assert answer.json()["code"] == "invalid_json", route
    # AG-UI reports a pre-stream failure in-band, as its clients expect; never a 500.
    assert agui.status_code in (200, 400) and "invalid_json" in agui.text
    assert stored == 0


@pytest.mark.parametrize(
    "body",
    [
        pytest.param(b"null", id="json-null"),
        pytest.param(b'{"prompt": "a\\u0000b"}', id="nul-in-prompt"),
        pytest.param(b'{"prompt": "hi", "sessionId": "s\\u0000"}', id="nul-in-session"),
        pytest.param(
            b'{"messages": [{"role": "user", "content": "a\\u0000"}]}', id="nul-in-message"
        ),
    ],
)
async def test_a_null_body_or_a_nul_character_is_a_400_on_every_json_route(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: bytes
) -> None:
    """Found by schemathesis: both were 500s (a re-read body; PostgreSQL refusing NUL)."""
    async with serve_arena(db, database_url, tmp_path) as arena:
        answers = [
            await arena.client.post(
                route, content=body, headers={"content-type": "application/json"}
            )
            for route in ROUTES
        ]
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    for route, answer in zip(ROUTES, answers, strict=True):
        assert answer.status_code == 400, (route, answer.text[:200])
        assert answer.json()["code"] == "invalid_request", route
    assert stored == 0


async def test_a_nesting_bomb_on_the_control_socket_is_refused_and_the_socket_lives_on(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        url = arena.url.replace("http://", "ws://") + "/api/arena/control"
        async with websockets.connect(url) as socket:
            await socket.send("[" * 30_000)
            first = json.loads(await socket.recv())
            await socket.send(json.dumps({"type": "stop", "matchupId": "not-a-uuid"}))
            second = json.loads(await socket.recv())

    assert first["type"] == "error"
    assert second["type"] == "error"  # the socket still answers
