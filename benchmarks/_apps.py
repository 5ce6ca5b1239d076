"""ASGI factories the benchmarks serve under granian, each in its own process.

* ``arena_app``     the real API (``create_api``), configured from the environment.
* ``baseline_app``  a bare sse-starlette endpoint streaming the same mock generator for two slots,
                    with no arena logic: no database, no plan, no token, no pydantic events.
"""

from __future__ import annotations

import asyncio
import json
import uuid
from collections.abc import AsyncIterator

from sse_starlette import EventSourceResponse
from starlette.applications import Starlette
from starlette.requests import Request
from starlette.routing import Route
from starlette.types import ASGIApp

from arena_api.app import create_api
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.providers.mock import MockModelProvider
from arena_api.settings import load_settings


def arena_app() -> ASGIApp:
    return create_api(load_settings(), standalone=True)


def baseline_app() -> ASGIApp:
    settings = load_settings()
    provider = MockModelProvider(settings.mock_tokens_per_second, settings.mock_tokens)
    models = [ModelEntry(uuid.uuid4(), name, "mock", name) for name in ("a", "b")]

    async def stream(request: Request) -> EventSourceResponse:
        prompt = (await request.json())["prompt"]
        messages = [ChatMessage(role="user", content=prompt)]

        async def frames() -> AsyncIterator[bytes]:
            queue: asyncio.Queue[tuple[str, str | None]] = asyncio.Queue()

            async def pump(slot: str, model: ModelEntry) -> None:
                async for chunk in provider.stream(model, messages):
                    if chunk.text:
                        queue.put_nowait((slot, chunk.text))
                queue.put_nowait((slot, None))

            tasks = [asyncio.create_task(pump(s, m)) for s, m in zip("AB", models, strict=True)]
            yield b'event: matchup_started\ndata: {"type":"matchup_started"}\n\n'
            live = 2
            try:
                while live:
                    slot, text = await queue.get()
                    if text is None:
                        live -= 1
                        continue
                    data = json.dumps(
                        {"type": "token", "slot": slot, "token": text}, separators=(",", ":")
                    )
                    yield f"event: token\ndata: {data}\n\n".encode()
                yield b'event: matchup_done\ndata: {"type":"matchup_done"}\n\n'
            finally:
                for task in tasks:
                    task.cancel()

        return EventSourceResponse(frames(), ping=15)

    return Starlette(routes=[Route("/stream", stream, methods=["POST"])])
