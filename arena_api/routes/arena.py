"""The arena's own routes: chat (native SSE), vote, round and conversation reads, leaderboard."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

from sse_starlette import EventSourceResponse
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ChatRequest, VoteRequest, parse_command
from arena_api.protocols import EventAdapter, NativeSSE
from arena_api.routes._request import read_json, uuid_param
from arena_api.service import ArenaService, RoundStream

__all__ = ["routes", "stream_response"]


def _arena(request: Request) -> ArenaService:
    return request.app.state.services.arena  # type: ignore[no-any-return]


def stream_response(round_: RoundStream, adapter: EventAdapter) -> Response:
    """Frame a round with ``adapter``; closing the response detaches from the round only."""

    async def frames() -> AsyncIterator[bytes]:
        async with contextlib.aclosing(round_.events) as events:
            async for event in events:
                yield adapter.serialize(event)
        tail = adapter.finalize()
        if tail:
            yield tail

    headers = {
        "cache-control": "no-cache",
        "x-accel-buffering": "no",
        "x-arena-matchup": round_.started.header(),
        "access-control-expose-headers": "x-arena-matchup",
        **adapter.headers,
    }
    return EventSourceResponse(frames(), headers=headers, media_type=adapter.media_type, ping=15)


async def chat(request: Request) -> Response:
    command = parse_command(ChatRequest, await read_json(request))
    round_ = await _arena(request).start_round(command, x_arena=request.headers.get("x-arena"))
    return stream_response(round_, NativeSSE())


async def vote(request: Request) -> JSONResponse:
    command = parse_command(VoteRequest, await read_json(request))
    reveal = await _arena(request).vote(command)
    return JSONResponse(reveal.wire())


async def matchup(request: Request) -> JSONResponse:
    view = await _arena(request).matchup(uuid_param(request, "matchup_id"))
    return JSONResponse(view.wire())


async def conversation(request: Request) -> JSONResponse:
    session_id = request.query_params.get("sessionId")
    if session_id is not None and not 1 <= len(session_id) <= 200:
        raise InvalidRequest(
            "sessionId must be 1 to 200 characters", details={"sessionId": ["bad length"]}
        )
    view = await _arena(request).conversation(uuid_param(request, "conversation_id"), session_id)
    return JSONResponse(view.wire())


async def leaderboard(request: Request) -> JSONResponse:
    return JSONResponse((await _arena(request).leaderboard()).wire())


async def model_list(request: Request) -> JSONResponse:
    """The enabled roster in OpenAI's list shape (Open WebUI's connection check)."""
    services = request.app.state.services
    created = int(services.started_at)
    data = [
        {
            "id": str(m.id),
            "object": "model",
            "created": created,
            "owned_by": m.provider,
            "name": m.display_name,
        }
        for m in await services.arena.roster()
    ]
    return JSONResponse({"object": "list", "data": data})


routes: list[BaseRoute] = [
    Route("/api/arena/chat", chat, methods=["POST"], name="chat"),
    Route("/api/arena/vote", vote, methods=["POST"], name="vote"),
    Route("/api/arena/matchups/{matchup_id}", matchup, methods=["GET"], name="matchup"),
    Route(
        "/api/arena/conversations/{conversation_id}",
        conversation,
        methods=["GET"],
        name="conversation",
    ),
    Route("/api/arena/leaderboard", leaderboard, methods=["GET"], name="leaderboard"),
    Route("/models", model_list, methods=["GET"], name="models"),
    Route("/v1/models", model_list, methods=["GET"], name="v1_models"),
]
