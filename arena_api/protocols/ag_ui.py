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
``threadId`` is not a conversation id: stock clients mint their own. The newest user message's
images are the round's: 1.0 ``image`` parts with a ``data`` source (base64 ``value`` and
``mimeType``) or a ``url`` source, and the 0.x ``binary`` part of an ``image/*`` type (``data``
or ``url``). A provider's ``file`` handle, audio, video and documents are a 400.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Annotated, Any, NotRequired

from pydantic import Field, TypeAdapter, with_config
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
from arena_api.core.requests import ImageBody
from arena_api.protocols._adapter import ClosingAdapter
from arena_api.protocols._framing import sse_data
from arena_api.protocols._ingress import (
    IGNORE_EXTRA,
    ArenaFields,
    build_request,
    image_body,
    message_prompt,
    messages_field,
    newest_user_message,
    unsupported_part,
    validate_envelope,
)
from arena_api.protocols.base import ClientRequest, RunContext
from arena_api.protocols.slot_error import error_code, slot_error_text

__all__ = [
    "PROTOCOL_VERSION",
    "AgUiAdapter",
    "AgUiMessage",
    "RunAgentInput",
    "parse_run_agent_input",
]

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
            value = {"slot": event.slot, "message": event.message, **error_code(event)}
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


@with_config(IGNORE_EXTRA)
class AgUiSource(TypedDict):
    """Where a media part's bytes are: ``data`` (base64 ``value``), ``url`` or a provider's
    ``file`` handle (which the arena cannot read)."""

    type: NotRequired[str]
    value: NotRequired[str]
    mimeType: NotRequired[str | None]
    mime_type: NotRequired[SkipJsonSchema[str | None]]


@with_config(IGNORE_EXTRA)
class AgUiPart(TypedDict):
    """A content part: ``text``, ``image`` (1.0, with a ``source``) and ``binary`` (0.x, an
    ``image/*`` ``mimeType`` with ``data`` or ``url``) are read; other media are a 400."""

    type: str
    text: NotRequired[str]
    source: NotRequired[AgUiSource]
    mimeType: NotRequired[str | None]
    data: NotRequired[str | None]
    url: NotRequired[str | None]
    mime_type: NotRequired[SkipJsonSchema[str | None]]


@with_config(IGNORE_EXTRA)
class AgUiMessage(TypedDict):
    """A message of the transcript; only the newest user message is read (its text and image
    parts)."""

    id: NotRequired[str | None]
    role: Annotated[
        str, Field(description="`user`, `assistant`, `system`, `developer`, `tool`, ...")
    ]
    content: NotRequired[
        Annotated[
            str | list[AgUiPart] | dict[str, Any] | None,
            Field(description="A string, content parts, or an activity message's object."),
        ]
    ]


def _mime(part: Mapping[str, Any]) -> str | None:
    mime = part.get("mimeType") or part.get("mime_type")
    return mime if isinstance(mime, str) else None


def _image_of(part: Mapping[str, Any], field: str) -> ImageBody | None:
    """The image of an ``image`` part (1.0) or of an ``image/*`` ``binary`` part (0.x)."""
    kind = part["type"]
    if kind == "image":
        source = part.get("source") or {}
        value = source.get("value")
        if source.get("type") == "data" and isinstance(value, str):
            if value[:5].lower() == "data:":  # a data URL where base64 belongs: read it as one
                return image_body(field, url=value)
            return image_body(field, data=value, media_type=_mime(source))
        if source.get("type") == "url" and isinstance(value, str):
            return image_body(field, url=value, media_type=_mime(source))
        if source.get("type") == "file":
            raise unsupported_part(field, "image (a provider's file handle)")
        raise InvalidRequest(
            f"{field}: an image part needs a source: data (base64 value) or url",
            details={field: ["source must be {type: data, value, mimeType} or {type: url, value}"]},
        )
    if kind == "binary":
        mime = _mime(part)
        if mime is None or not mime.lower().startswith("image/"):
            raise unsupported_part(field, f"binary ({mime})" if mime else "binary")
        data, url = part.get("data"), part.get("url")
        if not data and not url:
            raise unsupported_part(field, "binary (by id only)")
        return image_body(field, data=data, url=url, media_type=mime)
    return None


_Id = Annotated[str, Field(min_length=1)]


@with_config(IGNORE_EXTRA)
class RunAgentInput(TypedDict):
    """An AG-UI ``RunAgentInput`` (0.1.x or 1.0, camelCase or snake_case); arena fields ride
    ``forwardedProps``."""

    threadId: NotRequired[_Id | None]
    runId: NotRequired[_Id | None]
    messages: Annotated[list[AgUiMessage], messages_field()]
    tools: NotRequired[list[Any] | None]
    context: NotRequired[list[Any] | None]
    state: NotRequired[Any]
    forwardedProps: NotRequired[ArenaFields | None]
    thread_id: NotRequired[SkipJsonSchema[_Id | None]]
    run_id: NotRequired[SkipJsonSchema[_Id | None]]
    forwarded_props: NotRequired[SkipJsonSchema[ArenaFields | None]]


_RUN_AGENT_INPUT: TypeAdapter[RunAgentInput] = TypeAdapter(RunAgentInput)


def parse_run_agent_input(body: Mapping[str, Any]) -> ClientRequest:
    """Read an AG-UI ``RunAgentInput`` (0.1.x or 1.0).

    Raises:
        InvalidRequest: the body does not fit ``RunAgentInput``, no user message, a content
            part that is neither text nor an image, or a bad arena field. (An image is checked
            by the round, which refuses it with ``ImageError``.)
    """
    envelope = validate_envelope(_RUN_AGENT_INPUT, body)
    index, message = newest_user_message(envelope["messages"])
    prompt = message_prompt(message, f"messages[{index}].content", _image_of)
    forwarded = envelope.get("forwardedProps")
    if forwarded is None:
        forwarded = envelope.get("forwarded_props")
    extensions = [("forwardedProps.", forwarded)] if forwarded is not None else []
    request = build_request(prompt, extensions=extensions)
    context = RunContext(
        thread_id=envelope.get("threadId") or envelope.get("thread_id"),
        run_id=envelope.get("runId") or envelope.get("run_id"),
    )
    return ClientRequest(request, context)
