"""ASGI factories the benchmarks serve under granian, each in its own process.

* ``arena_app``     the real API (``create_api``), configured from the environment.
* ``baseline_app``  a bare sse-starlette endpoint streaming the same mock generator for two slots,
                    with no arena logic: no database, no plan, no token, no pydantic events.
* ``relay_baseline_app``  the same with the answers read off a fake vendor on a real socket.
* ``relay_minimal_app``   that relay plus the least an arena stores and serves per round.
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import json
import os
import secrets
import uuid
from collections.abc import AsyncIterator

import asyncpg
from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import Route
from starlette.types import ASGIApp

from arena_api.app import create_api
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.providers.mock import MockModelProvider
from arena_api.settings import load_settings


def arena_app() -> ASGIApp:
    return create_api(load_settings(), standalone=True)


async def _native_frames(
    answers: dict[str, AsyncIterator[str]], kept: dict[str, list[str]] | None = None
) -> AsyncIterator[bytes]:
    """Both slots' texts merged as they come, framed with the native SSE event names; each text
    is also appended to ``kept[slot]`` when given."""
    queue: asyncio.Queue[tuple[str, str | None]] = asyncio.Queue()

    async def pump(slot: str, texts: AsyncIterator[str]) -> None:
        async for text in texts:
            queue.put_nowait((slot, text))
        queue.put_nowait((slot, None))

    tasks = [asyncio.create_task(pump(slot, texts)) for slot, texts in answers.items()]
    yield b'event: matchup_started\ndata: {"type":"matchup_started"}\n\n'
    live = len(tasks)
    try:
        while live:
            slot, text = await queue.get()
            if text is None:
                live -= 1
                continue
            if kept is not None:
                kept[slot].append(text)
            data = json.dumps({"type": "token", "slot": slot, "token": text}, separators=(",", ":"))
            yield f"event: token\ndata: {data}\n\n".encode()
        yield b'event: matchup_done\ndata: {"type":"matchup_done"}\n\n'
    finally:
        for task in tasks:
            task.cancel()


def baseline_app() -> ASGIApp:
    settings = load_settings()
    provider = MockModelProvider(settings.mock_tokens_per_second, settings.mock_tokens)
    models = [ModelEntry(uuid.uuid4(), name, "mock", name) for name in ("a", "b")]

    async def texts(model: ModelEntry, messages: list[ChatMessage]) -> AsyncIterator[str]:
        async for chunk in provider.stream(model, messages):
            if chunk.text:
                yield chunk.text

    async def stream(request: Request) -> EventSourceResponse:
        messages = [ChatMessage(role="user", content=(await request.json())["prompt"])]
        answers = {slot: texts(m, messages) for slot, m in zip("AB", models, strict=True)}
        return EventSourceResponse(_native_frames(answers), ping=15)

    return Starlette(routes=[Route("/stream", stream, methods=["POST"])])


async def _vendor_tokens(host: str, port: int, model: str) -> AsyncIterator[str]:
    """The content deltas of one streamed answer, read off a raw socket (the least a relay
    can spend on the upstream side)."""
    body = json.dumps(
        {"model": model, "stream": True, "messages": [{"role": "user", "content": "hi"}]}
    ).encode()
    reader, writer = await asyncio.open_connection(host, port)
    writer.write(
        f"POST /v1/chat/completions HTTP/1.1\r\nHost: {host}:{port}\r\n"
        f"Content-Type: application/json\r\nContent-Length: {len(body)}\r\n\r\n".encode()
        + body
    )
    try:
        await reader.readuntil(b"\r\n\r\n")
        while True:
            size = int((await reader.readuntil(b"\r\n")).split(b";")[0], 16)
            if size == 0:
                return
            data = (await reader.readexactly(size + 2))[:-2]
            for line in data.split(b"\n"):
                if line.startswith(b"data: {"):
                    choices = json.loads(line[6:])["choices"]
                    if choices and choices[0]["delta"].get("content"):
                        yield choices[0]["delta"]["content"]
    finally:
        writer.close()


def relay_baseline_app() -> ASGIApp:
    """A bare relay of the vendor at ``RELAY_VENDOR_URL``: both slots, native event names."""
    vendor = os.environ["RELAY_VENDOR_URL"].removeprefix("http://").split("/")[0]
    host, port = vendor.split(":")

    async def stream(request: Request) -> EventSourceResponse:
        await request.body()
        answers = {slot: _vendor_tokens(host, int(port), f"vendor-{slot}") for slot in "AB"}
        return EventSourceResponse(_native_frames(answers), ping=15)

    return Starlette(routes=[Route("/stream", stream, methods=["POST"])])


MINIMAL_TABLES = (
    "CREATE TABLE IF NOT EXISTS minimal_rounds (id uuid PRIMARY KEY, token_hash bytea NOT NULL, "
    "prompt text NOT NULL, answer_a text NOT NULL, answer_b text NOT NULL);"
    "CREATE TABLE IF NOT EXISTS minimal_votes (round_id uuid PRIMARY KEY "
    "REFERENCES minimal_rounds, vote text NOT NULL)"
)


def relay_minimal_app() -> ASGIApp:
    """The least any arena does per round, on top of the bare relay: a round id and a vote token
    sent first, both answers kept and written as one row when the round ends, and a vote
    endpoint that checks the token and stores one vote per round. PostgreSQL at
    ``RELAY_DATABASE_URL`` through one asyncpg pool; no plan, no roster, no events, no
    middleware. It is a floor for an arena's cost on this machine, not a product. Its tables
    are ``MINIMAL_TABLES``, made before it starts."""
    vendor = os.environ["RELAY_VENDOR_URL"].removeprefix("http://").split("/")[0]
    host, port = vendor.split(":")

    @contextlib.asynccontextmanager
    async def lifespan(app: Starlette) -> AsyncIterator[None]:
        app.state.pool = await asyncpg.create_pool(os.environ["RELAY_DATABASE_URL"], max_size=20)
        yield
        await app.state.pool.close()

    async def frames(pool: asyncpg.Pool, prompt: str) -> AsyncIterator[bytes]:
        round_id, token = uuid.uuid4(), secrets.token_urlsafe(24)
        started = {"type": "matchup_started", "matchupId": str(round_id), "matchupToken": token}
        yield f"event: matchup_started\ndata: {json.dumps(started)}\n\n".encode()
        answers = {slot: _vendor_tokens(host, int(port), f"vendor-{slot}") for slot in "AB"}
        texts: dict[str, list[str]] = {"A": [], "B": []}
        async for frame in _native_frames(answers, texts):
            if not frame.startswith(b"event: matchup_"):
                yield frame
        await pool.execute(
            "INSERT INTO minimal_rounds VALUES ($1, $2, $3, $4, $5)",
            round_id,
            hashlib.sha256(token.encode()).digest(),
            prompt,
            "".join(texts["A"]),
            "".join(texts["B"]),
        )
        yield b'event: matchup_done\ndata: {"type":"matchup_done"}\n\n'

    async def stream(request: Request) -> EventSourceResponse:
        prompt = (await request.json())["prompt"]
        return EventSourceResponse(frames(request.app.state.pool, prompt), ping=15)

    async def vote(request: Request) -> JSONResponse:
        body = await request.json()
        stored = await request.app.state.pool.fetchval(
            "INSERT INTO minimal_votes SELECT id, $3 FROM minimal_rounds "
            "WHERE id = $1 AND token_hash = $2 ON CONFLICT DO NOTHING RETURNING round_id",
            uuid.UUID(body["matchupId"]),
            hashlib.sha256(body["matchupToken"].encode()).digest(),
            body["vote"],
        )
        if stored is None:
            return JSONResponse({"code": "invalid_vote"}, status_code=409)
        return JSONResponse({"ok": True})

    routes = [
        Route("/stream", stream, methods=["POST"]),
        Route("/api/arena/vote", vote, methods=["POST"]),
    ]
    return Starlette(routes=routes, lifespan=lifespan)
