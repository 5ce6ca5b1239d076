"""AG-UI: typed run and text events over SSE, and ingress of a ``RunAgentInput``.

Egress (one ``data:`` line per event, camelCase, optional fields omitted, never ``null``)::

    matchup_started -> RUN_STARTED, CUSTOM arena_matchup, TEXT_MESSAGE_START per slot
    token           -> TEXT_MESSAGE_CONTENT   (messageId "<matchupId>:<slot>", never empty)
    slot_error      -> CUSTOM slot_error + the marked text as TEXT_MESSAGE_CONTENT
    slot_done       -> TEXT_MESSAGE_END
    steered         -> CUSTOM steered
    run_error       -> RUN_ERROR (message, code); nothing follows
    matchup_done    -> TEXT_MESSAGE_END for any open message, then RUN_FINISHED

``threadId``/``runId`` echo the client's ``RunAgentInput`` and fall back to the conversation
(then matchup) id and the matchup id. A stream that ends with no terminal event (the round was
stopped) is closed with ``RUN_FINISHED`` and a ``cancelled`` outcome, so no client hangs.
Pre-stream failures are in-band: a 200 whose single event is ``RUN_ERROR``.

Ingress accepts both the 0.1.x shape (``tools``/``context``/``forwardedProps`` required) and the
1.0 shape (all optional), in camelCase or snake_case; arena fields ride ``forwardedProps``.
``threadId`` is not a conversation id: stock clients mint their own.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from arena_api.core.errors import InvalidRequest
from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.core.models import Slot
from arena_api.protocols._adapter import ClosingAdapter
from arena_api.protocols._framing import sse_data
from arena_api.protocols._ingress import (
    build_request,
    newest_user_message,
    unsupported_part,
)
from arena_api.protocols.base import ClientRequest, RunContext
from arena_api.protocols.slot_error import slot_error_text

__all__ = ["PROTOCOL_VERSION", "AgUiAdapter", "parse_run_agent_input"]

#: The AG-UI protocol version this adapter produces (a 1.0 producer must declare it).
PROTOCOL_VERSION = "1.0"


class AgUiAdapter(ClosingAdapter):
    name = "ag-ui"
    media_type = "text/event-stream"
    in_band_errors = True

    def __init__(self, context: RunContext | None = None) -> None:
        super().__init__(context)
        context = context or RunContext()
        self._thread_id = context.thread_id
        self._run_id = context.run_id
        self._open: dict[Slot, str] = {}
        self._started = False

    def _frame(self, event: PublicEvent) -> bytes:
        if isinstance(event, Token):
            message_id = self._open.get(event.slot)
            if message_id is None:
                return b""
            return _content(message_id, event.token, event.slot)
        if isinstance(event, MatchupStarted):
            return self._start(event)
        if isinstance(event, SlotError):
            value = {"slot": event.slot, "message": event.message}
            frame = _event("CUSTOM", name="slot_error", value=value)
            message_id = self._open.get(event.slot)
            if message_id is not None:
                frame += _content(message_id, slot_error_text(event.message), event.slot)
            return frame
        if isinstance(event, SlotDone):
            return self._end(event.slot)
        if isinstance(event, Steered):
            return _event("CUSTOM", name="steered", value={"instruction": event.instruction})
        if isinstance(event, RunError):
            return _event("RUN_ERROR", message=event.message, code=event.code)
        if isinstance(event, MatchupDone):
            return self._finish()
        raise TypeError(f"unknown public event {event!r}")

    def finalize(self) -> bytes:
        if self._started and not self._ended:  # the round was stopped: settle the run
            self._ended = True
            return self._finish(outcome={"type": "cancelled"})
        return b""

    def _start(self, event: MatchupStarted) -> bytes:
        self._started = True
        if self._thread_id is None:
            self._thread_id = event.conversation_id or event.matchup_id
        if self._run_id is None:
            self._run_id = event.matchup_id
        metadata = {k: v for k, v in event.wire().items() if k != "type"}
        frames = [
            _event(
                "RUN_STARTED",
                threadId=self._thread_id,
                runId=self._run_id,
                protocolVersion=PROTOCOL_VERSION,
            ),
            _event("CUSTOM", name="arena_matchup", value=metadata),
        ]
        for slot in event.slots:
            message_id = f"{event.matchup_id}:{slot}"
            self._open[slot] = message_id
            frames.append(
                _event("TEXT_MESSAGE_START", messageId=message_id, role="assistant", slot=slot)
            )
        return b"".join(frames)

    def _end(self, slot: Slot) -> bytes:
        message_id = self._open.pop(slot, None)
        if message_id is None:
            return b""
        return _event("TEXT_MESSAGE_END", messageId=message_id, slot=slot)

    def _finish(self, outcome: Mapping[str, Any] | None = None) -> bytes:
        frames = b"".join(self._end(slot) for slot in list(self._open))
        extra = {"outcome": outcome} if outcome is not None else {}
        finished = _event("RUN_FINISHED", threadId=self._thread_id, runId=self._run_id, **extra)
        return frames + finished


def _event(type_: str, **fields: Any) -> bytes:
    """One AG-UI event; ``None`` values are omitted, never sent as ``null``."""
    return sse_data({"type": type_, **_omit_none(fields)})


def _omit_none(fields: Mapping[str, Any]) -> dict[str, Any]:
    return {
        key: _omit_none(value) if isinstance(value, Mapping) else value
        for key, value in fields.items()
        if value is not None
    }


def _content(message_id: str, delta: str, slot: Slot) -> bytes:
    return _event("TEXT_MESSAGE_CONTENT", messageId=message_id, delta=delta, slot=slot)


# -- ingress -------------------------------------------------------------------------------------

_TEXT_PART = "text"


def _first(body: Mapping[str, Any], *keys: str) -> Any:
    for key in keys:
        if body.get(key) is not None:
            return body[key]
    return None


def _optional_id(body: Mapping[str, Any], camel: str, snake: str) -> str | None:
    value = _first(body, camel, snake)
    if value is None:
        return None
    if not isinstance(value, str) or not value:
        raise InvalidRequest(
            f"{camel} must be a non-empty string", details={camel: ["must be a non-empty string"]}
        )
    return value


def parse_run_agent_input(body: Mapping[str, Any]) -> ClientRequest:
    """Read an AG-UI ``RunAgentInput`` (0.1.x or 1.0).

    Raises:
        InvalidRequest: no user message, a non-text content part, or a bad arena field.
    """
    messages = body["messages"]
    index, message = newest_user_message(messages)
    where = f"messages[{index}].content"
    content = message.get("content")
    if isinstance(content, str):
        prompt = content
    elif isinstance(content, list):
        texts = []
        for number, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind != _TEXT_PART:
                raise unsupported_part(f"{where}[{number}]", str(kind))
            texts.append(str(part.get("text", "")))
        prompt = "\n".join(texts)
    else:
        raise InvalidRequest(
            "The user message has no text content",
            details={where: ["must be a string or a list of text parts"]},
        )
    forwarded = _first(body, "forwardedProps", "forwarded_props")
    extensions = [("forwardedProps.", forwarded)] if isinstance(forwarded, Mapping) else []
    request = build_request(prompt, prompt_field=where, extensions=extensions)
    context = RunContext(
        thread_id=_optional_id(body, "threadId", "thread_id"),
        run_id=_optional_id(body, "runId", "run_id"),
    )
    return ClientRequest(request, context)
