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

Ingress reads a standard body: the prompt is the newest user message (string or text parts, and
its ``image_url`` parts as the round's images: a ``data:`` URL, or http(s) where the operator
allows fetching), arena fields ride the ``omni_arena`` object (``arena`` is accepted as its name
too), ``user`` seeds ``sessionId``, sampling knobs and tools are ignored, and ``stream: false``
is refused: a matchup is two live streams with no buffered completion to return.
"""

from __future__ import annotations

import time
from collections.abc import Mapping
from typing import Annotated, Any, Literal, NotRequired

from pydantic import Field, StrictBool, TypeAdapter, with_config
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict  # pydantic needs it for a TypedDict on Python < 3.12

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
from arena_api.core.requests import ImageBody, stream_false_refused
from arena_api.protocols._adapter import ClosingAdapter
from arena_api.protocols._framing import SSE_DONE, sse_data
from arena_api.protocols._ingress import (
    IGNORE_EXTRA,
    ArenaFields,
    Prompt,
    build_request,
    image_body,
    message_prompt,
    messages_field,
    newest_user_message,
    validate_envelope,
)
from arena_api.protocols.base import ClientRequest, RunContext
from arena_api.protocols.slot_error import error_code, slot_error_text

__all__ = [
    "CHAT_COMPLETIONS_REQUEST",
    "COMPLETION_MODEL",
    "ChatCompletionsRequest",
    "OpenAiMessage",
    "OpenAiSseAdapter",
    "SessionUser",
    "StreamError",
    "openai_prompt",
    "parse_chat_completions_body",
]

#: The ``model`` of every chunk: the arena, never the model that answered.
COMPLETION_MODEL = "omni-arena"
_INDEX: Mapping[Slot, int] = {"A": 0, "B": 1}


class StreamErrorDetail(TypedDict):
    message: str
    type: Literal["omni_arena_error"]
    code: str


class StreamError(TypedDict):
    """A round that failed after its stream began, on the OpenAI framing."""

    error: StreamErrorDetail


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
                omni_arena_error={
                    "slot": event.slot,
                    "message": event.message,
                    **error_code(event),
                },
            )
        if isinstance(event, SlotDone):
            self._finished.add(event.slot)
            return self._chunk({})
        if isinstance(event, Steered):
            return self._chunk({}, omni_arena_steered={"instruction": event.instruction})
        if isinstance(event, RunError):
            error = StreamErrorDetail(
                message=event.message, type="omni_arena_error", code=event.code
            )
            return sse_data(StreamError(error=error))
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


@with_config(IGNORE_EXTRA)
class ImageUrl(TypedDict):
    url: Annotated[
        str, Field(description="A `data:image/...;base64,` URL, or http(s) where allowed.")
    ]
    detail: NotRequired[str | None]


@with_config(IGNORE_EXTRA)
class OpenAiContentPart(TypedDict):
    """A content part: ``text`` and ``image_url`` parts are read (audio or a file is a 400)."""

    type: str
    text: NotRequired[str]
    image_url: NotRequired[ImageUrl | str]


@with_config(IGNORE_EXTRA)
class OpenAiMessage(TypedDict):
    role: Annotated[
        str, Field(description="`system`, `developer`, `user`, `assistant`, `tool`, ...")
    ]
    content: NotRequired[str | list[OpenAiContentPart] | None]


def _image_of(part: Mapping[str, Any], field: str) -> ImageBody | None:
    """An ``image_url`` part's image (``detail`` is the client's wish for the vendor; the arena
    sends every image as it is)."""
    if part["type"] != "image_url":
        return None
    source = part.get("image_url")
    url = source.get("url") if isinstance(source, Mapping) else source
    if not isinstance(url, str) or not url:
        raise InvalidRequest(
            f"{field}: an image_url part needs image_url.url",
            details={field: ["image_url.url must be a data: URL or an http(s) URL"]},
        )
    return image_body(field, url=url)


def openai_prompt(message: OpenAiMessage, where: str) -> Prompt:
    """The newest user message of a chat-completions body: its text and its images.

    Raises:
        InvalidRequest: an audio or file part, an ``image_url`` part without a URL, or no
            content.
    """
    return message_prompt(message, where, _image_of)


@with_config(IGNORE_EXTRA)
class SessionUser(TypedDict):
    id: str


@with_config(IGNORE_EXTRA)
class ChatCompletionsRequest(TypedDict):
    """An OpenAI chat-completions body. The prompt is the newest user message; sampling knobs
    and tools are ignored."""

    model: NotRequired[
        Annotated[
            str | None,
            Field(
                description="`arena-duel`, `arena-a`, `arena-b`, `arena-single` or a roster model "
                "are the chat front's; any other id gets a matchup with both slots as "
                "`choices[0]` and `choices[1]`."
            ),
        ]
    ]
    messages: Annotated[list[OpenAiMessage], messages_field()]
    stream: NotRequired[
        Annotated[
            StrictBool | None, Field(description="`false` is refused, except on a helper task.")
        ]
    ]
    user: NotRequired[Annotated[str | SessionUser | None, Field(description="Seeds `sessionId`.")]]
    omni_arena: NotRequired[ArenaFields | None]
    #: ``omni_arena``'s other name: read when it is an object (then validated as arena fields).
    arena: NotRequired[SkipJsonSchema[Any]]


CHAT_COMPLETIONS_REQUEST: TypeAdapter[ChatCompletionsRequest] = TypeAdapter(ChatCompletionsRequest)


def _session_seed(user: str | SessionUser | None) -> str | None:
    """``user`` as a session id: the string, or the ``id`` of a proxy's user object."""
    if isinstance(user, str):
        return user or None
    if user is not None:
        return user["id"] or None
    return None


def parse_chat_completions_body(body: Mapping[str, Any]) -> ClientRequest:
    """Read an OpenAI chat-completions body.

    Raises:
        InvalidRequest: the body does not fit ``ChatCompletionsRequest``, ``stream: false``, no
            user message, a content part that is neither text nor an image, or a bad arena
            field. (An image is checked by the round, which refuses it with ``ImageError``.)
    """
    envelope = validate_envelope(CHAT_COMPLETIONS_REQUEST, body)
    if envelope.get("stream") is False:
        raise stream_false_refused()
    index, message = newest_user_message(envelope["messages"])
    prompt = openai_prompt(message, f"messages[{index}].content")
    extensions: list[tuple[str, Mapping[str, Any]]] = []
    omni_arena = envelope.get("omni_arena")
    if omni_arena is not None:
        extensions.append(("omni_arena.", omni_arena))
    arena = envelope.get("arena")
    if isinstance(arena, Mapping):
        extensions.append(("arena.", arena))
    defaults = {"sessionId": (_session_seed(envelope.get("user")), "user")}
    request = build_request(prompt, extensions=extensions, defaults=defaults)
    return ClientRequest(request)
