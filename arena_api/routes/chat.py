"""The chat routes: one round, framed in the wire protocol the client asked for.

``POST /api/arena/chat`` picks the protocol from ``?protocol=``, then ``Accept``, then native SSE;
``POST /chat/completions`` and ``POST /v1/chat/completions`` imply OpenAI framing (an OpenAI
client appends that path to its base URL and cannot add a query). The model list the OpenAI
clients discover the arena with lives in ``routes/models.py``.

On the OpenAI paths, a request for one of the chat front's models (the blind arena models, a
named roster model) or an Open WebUI helper task is answered by ``OpenAiChatService``: one text
on ``choices[0]``, or a plain ``chat.completion`` for a helper task. Any other model id gets the
seed API's matchup, both slots as ``choices[0]`` and ``choices[1]``.

A chat body may carry the prompt's images (each protocol's image parts, checked by the round), so
these routes read up to ``max_round_body_bytes`` (``ARENA_MAX_BODY_BYTES`` plus
``ARENA_MAX_IMAGES`` images of ``ARENA_MAX_IMAGE_BYTES`` as base64); every other route keeps
``ARENA_MAX_BODY_BYTES``.

Failures before streaming keep their HTTP status, except on a protocol whose clients settle a
run only on a terminal event (AG-UI): there they arrive at 200 as that protocol's single error
event. A failure after streaming began is the round's ``run_error``, framed by the adapter.
"""

from __future__ import annotations

import contextlib
import logging
from collections.abc import AsyncIterator
from typing import Any

from starlette.requests import Request
from starlette.responses import JSONResponse, Response, StreamingResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import ArenaError
from arena_api.core.events import RunError
from arena_api.protocols import EventAdapter, Protocol, get_protocol, parse_chat_body
from arena_api.protocols import select_protocol as select
from arena_api.protocols.openai_text import OpenAiTextStream, completion_body, read_chat_call
from arena_api.routes._event_stream import EventStream
from arena_api.routes._request import read_json, services_of
from arena_api.services import (
    ArenaService,
    CompletionReply,
    OpenAiChatService,
    RoundOptions,
    RoundStream,
    TextReply,
)

__all__ = ["in_band_failure", "routes", "select", "stream_response"]

_log = logging.getLogger(__name__)
_OPENAI = get_protocol("openai")
_PING_SECONDS = 15
#: ``_serve``'s body when the route has not read it yet (a JSON body may be ``null``).
_UNREAD = object()


def _arena(request: Request) -> ArenaService:
    return services_of(request).arena


def _stream_headers(adapter: EventAdapter) -> dict[str, str]:
    return {"cache-control": "no-cache", "x-accel-buffering": "no", **adapter.headers}


def stream_response(round_: RoundStream, adapter: EventAdapter) -> Response:
    """Frame a round with ``adapter``; closing the response detaches from the round only."""

    async def frames() -> AsyncIterator[bytes]:
        serialize = adapter.serialize
        try:
            async with contextlib.aclosing(round_.batches()) as batches:
                async for batch in batches:
                    # Most batches are one event (a token): framed without a join.
                    if len(batch) == 1:
                        yield serialize(batch[0])
                    else:
                        yield b"".join(map(serialize, batch))
        except Exception:  # the stream is committed at 200: fail in the protocol's own idiom
            _log.exception("round %s stream failed", round_.started.matchup_id)
            yield adapter.serialize(RunError(code="stream_failed", message="The round failed"))
        tail = adapter.finalize()
        if tail:
            yield tail

    headers = {
        **_stream_headers(adapter),
        "x-arena-matchup": round_.started.header(),  # exposed to listed origins (_browser)
    }
    if adapter.media_type == "text/event-stream":
        # LF pings: AG-UI's client splits events on a blank line written as "\n\n".
        return EventStream(
            frames(), headers=headers, media_type=adapter.media_type, ping=_PING_SECONDS, sep="\n"
        )
    # JSON Lines has no comment syntax, so no keep-alive pings.
    return StreamingResponse(frames(), headers=headers, media_type=adapter.media_type)


def in_band_failure(adapter: EventAdapter, exc: ArenaError) -> Response:
    """A pre-stream failure as the protocol's single terminal event, at 200."""
    message = exc.message
    if exc.details:
        fields = "; ".join(f"{k}: {', '.join(map(str, v))}" for k, v in exc.details.items())
        message = f"{message} ({fields})"
    body = adapter.serialize(RunError(code=exc.code, message=message)) + adapter.finalize()
    return Response(body, media_type=adapter.media_type, headers=_stream_headers(adapter))


def text_response(reply: TextReply) -> Response:
    """Stream a chat-front answer on ``choices[0]``."""
    framing = OpenAiTextStream(reply.model)

    async def frames() -> AsyncIterator[bytes]:
        yield framing.start(reply.metadata)
        try:
            async with contextlib.aclosing(reply.text) as pieces:
                async for piece in pieces:
                    yield framing.text(piece)
        except Exception:  # committed at 200: say so in the answer, then end it cleanly
            _log.exception("chat front stream for %s failed", reply.model)
            yield framing.text("\n\n> ⚠️ **The round failed.** Please try again.\n")
        yield framing.finish()

    return EventStream(
        frames(),
        headers=_stream_headers(_OPENAI.new_adapter()),
        media_type=framing.media_type,
        ping=_PING_SECONDS,
        sep="\n",
    )


async def _round_body(request: Request) -> Any:
    """The JSON body of a request that may start a round: it may carry images, so past
    ``ARENA_MAX_BODY_BYTES`` it has room for them as base64 (``max_round_body_bytes``), and
    for them only."""
    settings = services_of(request).settings
    return await read_json(
        request,
        max_bytes=settings.max_body_bytes,
        image_room=settings.max_round_body_bytes - settings.max_body_bytes,
    )


async def _serve(request: Request, protocol: Protocol, body: object = _UNREAD) -> Response:
    try:
        client = parse_chat_body(protocol, await _round_body(request) if body is _UNREAD else body)
        round_ = await _arena(request).start_round(
            client.request,
            x_arena=request.headers.get("x-arena"),
            options=RoundOptions(protocol=protocol.name),
        )
    except ArenaError as exc:
        adapter = protocol.new_adapter()
        if not adapter.in_band_errors:
            raise
        return in_band_failure(adapter, exc)
    return stream_response(round_, protocol.new_adapter(client.context))


async def chat(request: Request) -> Response:
    protocol = select(request.query_params.get("protocol"), request.headers.get("accept"))
    return await _serve(request, protocol)


def _front(request: Request) -> OpenAiChatService:
    return services_of(request).chat


async def chat_completions(request: Request) -> Response:
    body = await _round_body(request)
    settings = services_of(request).settings
    call = read_chat_call(
        body,
        chat_id=request.headers.get(settings.chat_id_header),
        user_id=request.headers.get(settings.user_id_header),
    )
    if call is not None:
        reply = await _front(request).reply(call)
        if isinstance(reply, CompletionReply):
            return JSONResponse(completion_body(reply.model, reply.content))
        if isinstance(reply, TextReply):
            return text_response(reply)
    return await _serve(request, _OPENAI, body)


routes: list[BaseRoute] = [
    Route("/api/arena/chat", chat, methods=["POST"], name="chat"),
    Route("/chat/completions", chat_completions, methods=["POST"], name="chat_completions"),
    Route("/v1/chat/completions", chat_completions, methods=["POST"], name="v1_chat_completions"),
]
