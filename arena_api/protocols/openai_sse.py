"""OpenAI ``chat.completion.chunk`` SSE, and ingress of a chat-completions body.

Every frame carries one choice per slot of the round, in slot order, so ``choices[0]`` is always
slot A (clients read it positionally) and ``choices[1]`` slot B; each choice keeps its slot's
``index`` (0 for A, 1 for B). A slot with nothing to say in a frame gets an empty ``delta``, and
a finished slot keeps ``finish_reason: "stop"``::

    matchup_started -> role deltas + top-level ``omni_arena`` (the matchup metadata)
    token           -> that choice's ``delta.content``
    slot_error      -> top-level ``omni_arena_error`` {slot, message} + the marked text
    slot_done       -> that choice's ``finish_reason: "stop"``
    steered         -> top-level ``omni_arena_steered`` {instruction}
    run_error       -> ``data: {"error": {message, type: "omni_arena_error", code}}``
    (end)           -> ``data: [DONE]``

Ingress reads a standard body: the prompt is the newest user message (string or text parts),
arena fields ride the ``omni_arena`` object (``arena`` is accepted as its name too), ``user``
seeds ``sessionId``, sampling knobs and tools are ignored, and ``stream: false`` is refused: a
matchup is two live streams with no buffered completion to return.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Any, Literal

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
from arena_api.core.requests import stream_false_refused
from arena_api.protocols._adapter import ClosingAdapter
from arena_api.protocols._framing import SSE_DONE, sse_data
from arena_api.protocols._ingress import build_request, newest_user_message, unsupported_part
from arena_api.protocols.base import ClientRequest, RunContext
from arena_api.protocols.slot_error import slot_error_text

__all__ = [
    "COMPLETION_MODEL",
    "OpenAiSseAdapter",
    "message_text",
    "parse_chat_completions_body",
    "stream_flag",
]

#: The ``model`` of every chunk: the arena, never the model that answered.
COMPLETION_MODEL = "omni-arena"
_INDEX: Mapping[Slot, int] = {"A": 0, "B": 1}


class OpenAiSseAdapter(ClosingAdapter):
    name = "openai"
    media_type = "text/event-stream"

    def __init__(self, context: RunContext | None = None) -> None:
        super().__init__(context)
        self._id = ""
        self._created = int(time.time())
        self._slots: tuple[Slot, ...] = ()
        self._finished: set[Slot] = set()

    def _frame(self, event: PublicEvent) -> bytes:
        if isinstance(event, Token):
            return self._chunk({event.slot: {"content": event.token}})
        if isinstance(event, MatchupStarted):
            self._id = f"chatcmpl-{event.matchup_id}"
            self._slots = event.slots
            metadata = {k: v for k, v in event.wire().items() if k != "type"}
            role = {"role": "assistant"}
            return self._chunk(dict.fromkeys(event.slots, role), omni_arena=metadata)
        if isinstance(event, SlotError):
            return self._chunk(
                {event.slot: {"content": slot_error_text(event.message)}},
                omni_arena_error={"slot": event.slot, "message": event.message},
            )
        if isinstance(event, SlotDone):
            self._finished.add(event.slot)
            return self._chunk({})
        if isinstance(event, Steered):
            return self._chunk({}, omni_arena_steered={"instruction": event.instruction})
        if isinstance(event, RunError):
            error = {"message": event.message, "type": "omni_arena_error", "code": event.code}
            return sse_data({"error": error})
        if isinstance(event, MatchupDone):
            return b""
        raise TypeError(f"unknown public event {event!r}")

    def finalize(self) -> bytes:
        return SSE_DONE

    def _chunk(self, deltas: Mapping[Slot, Mapping[str, str]], **extensions: Any) -> bytes:
        choices = [
            {
                "index": _INDEX[slot],
                "delta": deltas.get(slot, {}),
                "finish_reason": "stop" if slot in self._finished else None,
            }
            for slot in self._slots
        ]
        chunk = {
            "id": self._id,
            "object": "chat.completion.chunk",
            "created": self._created,
            "model": COMPLETION_MODEL,
            "choices": choices,
            **extensions,
        }
        return sse_data(chunk)


# -- ingress -------------------------------------------------------------------------------------

_EXTENSION_NAMES = ("omni_arena", "arena")


def message_text(
    message: Mapping[str, Any], where: str, *, other_parts: Literal["refuse", "skip"] = "refuse"
) -> str:
    """A message's text: its string content, or its text parts joined by newlines.

    Args:
        other_parts: what a part that is not text (an image, audio) does: ``refuse`` the
            message, or ``skip`` it (an earlier message, shown as context only).

    Raises:
        InvalidRequest: a part that is not text (named at ``where``) when refused, or no text
            content.
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        texts = []
        for number, part in enumerate(content):
            kind = part.get("type") if isinstance(part, Mapping) else None
            if kind == "text":
                texts.append(str(part.get("text", "")))
            elif other_parts == "refuse":
                raise unsupported_part(f"{where}[{number}]", str(kind))
        return "\n".join(texts)
    raise InvalidRequest(
        "The user message has no text content",
        details={where: ["must be a string or a list of text parts"]},
    )


def stream_flag(body: Mapping[str, Any]) -> bool | None:
    """The body's ``stream``: ``None`` when absent.

    Raises:
        InvalidRequest: it is not a boolean.
    """
    stream = body.get("stream")
    if stream is not None and not isinstance(stream, bool):
        raise InvalidRequest("stream must be a boolean", details={"stream": ["must be a boolean"]})
    return stream


def _session_seed(user: object) -> str | None:
    """``user`` as a session id: the string, or the ``id`` of a proxy's user object."""
    if isinstance(user, str) and user:
        return user
    if isinstance(user, Mapping) and isinstance(user.get("id"), str) and user["id"]:
        return str(user["id"])
    return None


def parse_chat_completions_body(body: Mapping[str, Any]) -> ClientRequest:
    """Read an OpenAI chat-completions body.

    Raises:
        InvalidRequest: ``stream: false``, no user message, a non-text content part, or a bad
            arena field.
    """
    if stream_flag(body) is False:
        raise stream_false_refused()
    index, message = newest_user_message(body["messages"])
    where = f"messages[{index}].content"
    prompt = message_text(message, where)
    extensions = [
        (f"{name}.", body[name]) for name in _EXTENSION_NAMES if isinstance(body.get(name), Mapping)
    ]
    defaults = {"sessionId": (_session_seed(body.get("user")), "user")}
    request = build_request(prompt, prompt_field=where, extensions=extensions, defaults=defaults)
    return ClientRequest(request)
