"""Vercel AI SDK UI message stream v1 (``useChat``), and ingress of a ``useChat`` body.

Egress (SSE ``data:`` lines, header ``x-vercel-ai-ui-message-stream: v1``, ``data: [DONE]``)::

    matchup_started -> start, data-arena-meta, text-start (id = matchup id)
    token (main)    -> text-delta
    token (B)       -> data-arena-b-delta {text}
    slot_error      -> data-arena-error {slot, message}   (not `error`: that ends the chat)
    slot_done       -> text-end (main) | data-arena-b-done (B)
    steered         -> data-arena-steered {instruction}
    run_error       -> error {errorText}
    matchup_done    -> text-end if still open, finish

The main slot is the round's first (A), read off the message's text parts; slot B rides custom
data parts. ``data-arena-meta`` carries the matchup metadata, ``mainSlot`` and (on a two-slot
round) ``dataSlot``. Only chunk types present since AI SDK v5 are used, so v5 and later clients
both accept the stream. A stopped round ends with ``abort``.

Ingress accepts the body ``useChat`` posts: v5 ``parts`` or v4 ``content``; arena fields ride
the top level (``useChat({ body })``); ``id``, ``trigger`` and ``messageId`` are ignored. The
newest user message's images are the round's: ``file`` parts of an ``image/*`` ``mediaType``
(their ``url`` a ``data:`` URL, or http(s) where the operator allows fetching), v4 ``image``
parts and ``experimental_attachments`` of an image type. Any other file is a 400.
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
from arena_api.protocols._framing import SSE_DONE, sse_data
from arena_api.protocols._ingress import (
    IGNORE_EXTRA,
    ArenaFields,
    Prompt,
    build_request,
    image_body,
    messages_field,
    newest_user_message,
    prompt_of_parts,
    unsupported_part,
    validate_envelope,
)
from arena_api.protocols.base import ClientRequest, RunContext
from arena_api.protocols.slot_error import error_code

__all__ = [
    "UI_MESSAGE_STREAM_HEADERS",
    "UiMessage",
    "UiPart",
    "UseChatRequest",
    "VercelAiAdapter",
    "parse_use_chat_body",
]

UI_MESSAGE_STREAM_HEADERS: Mapping[str, str] = {"x-vercel-ai-ui-message-stream": "v1"}


class VercelAiAdapter(ClosingAdapter):
    name = "vercel-ai"
    media_type = "text/event-stream"

    def __init__(self, context: RunContext | None = None) -> None:
        super().__init__(context)
        self._text_id: str | None = None
        self._main: Slot | None = None
        self._text_open = False
        self._started = False

    @property
    def headers(self) -> Mapping[str, str]:
        return UI_MESSAGE_STREAM_HEADERS

    def _frame(self, event: PublicEvent) -> bytes:
        if isinstance(event, Token):
            if event.slot == self._main:
                if not self._text_open:
                    return b""
                return sse_data({"type": "text-delta", "id": self._text_id, "delta": event.token})
            return sse_data({"type": "data-arena-b-delta", "data": {"text": event.token}})
        if isinstance(event, MatchupStarted):
            return self._start(event)
        if isinstance(event, SlotError):
            data = {"slot": event.slot, "message": event.message, **error_code(event)}
            return sse_data({"type": "data-arena-error", "data": data})
        if isinstance(event, SlotDone):
            if event.slot == self._main:
                return self._end_text()
            return sse_data({"type": "data-arena-b-done", "data": {}})
        if isinstance(event, Steered):
            data = {"instruction": event.instruction}
            return sse_data({"type": "data-arena-steered", "data": data})
        if isinstance(event, RunError):
            return sse_data({"type": "error", "errorText": event.message})
        if isinstance(event, MatchupDone):
            return self._end_text() + sse_data({"type": "finish"})
        raise TypeError(f"unknown public event {event!r}")

    def finalize(self) -> bytes:
        if self._started and not self._ended:  # the round was stopped
            return self._end_text() + sse_data({"type": "abort"}) + SSE_DONE
        return SSE_DONE

    def _start(self, event: MatchupStarted) -> bytes:
        self._started = True
        self._main = event.slots[0]
        self._text_id = event.matchup_id
        meta: dict[str, Any] = {k: v for k, v in event.wire().items() if k != "type"}
        meta["mainSlot"] = event.slots[0]
        if len(event.slots) > 1:
            meta["dataSlot"] = event.slots[1]
        self._text_open = True
        return (
            sse_data({"type": "start"})
            + sse_data({"type": "data-arena-meta", "data": meta})
            + sse_data({"type": "text-start", "id": self._text_id})
        )

    def _end_text(self) -> bytes:
        if not self._text_open:
            return b""
        self._text_open = False
        return sse_data({"type": "text-end", "id": self._text_id})


# -- ingress -------------------------------------------------------------------------------------

_MEDIA_PARTS = frozenset({"file", "image"})  # v5 `file`; v4 model content `image`


@with_config(IGNORE_EXTRA)
class UiPart(TypedDict):
    """A message part; ``text`` parts are the prompt, ``file`` parts of an image type (or v4
    ``image`` parts) its images, any other file a 400; the others (``step-start``,
    ``reasoning``, ``data-*``, tools) carry no prompt."""

    type: str
    text: NotRequired[str]
    mediaType: NotRequired[Annotated[Any, Field(description="`image/png`, ...")]]
    url: NotRequired[Annotated[Any, Field(description="A `data:` URL, or http(s) where allowed.")]]
    mimeType: NotRequired[SkipJsonSchema[Any]]  # v4 spelling
    data: NotRequired[SkipJsonSchema[Any]]  # v4 file part: base64 or a URL
    image: NotRequired[SkipJsonSchema[Any]]  # v4 image part: base64 or a URL


@with_config(IGNORE_EXTRA)
class UiMessage(TypedDict):
    id: NotRequired[str | None]
    role: Annotated[str, Field(description="`user`, `assistant` or `system`.")]
    parts: NotRequired[Annotated[list[UiPart] | None, Field(description="AI SDK v5.")]]
    content: NotRequired[
        Annotated[str | list[UiPart] | None, Field(description="AI SDK v4 (or its parts).")]
    ]
    experimental_attachments: NotRequired[SkipJsonSchema[Any]]  # v4: images taken, files a 400


@with_config(IGNORE_EXTRA)
class UseChatRequest(ArenaFields):
    """The body ``useChat`` posts (AI SDK v5 ``parts`` or v4 ``content``); arena fields ride
    the top level (``useChat({ body })``)."""

    id: NotRequired[str | None]
    messages: Annotated[list[UiMessage], messages_field()]
    trigger: NotRequired[str | None]


_USE_CHAT_REQUEST: TypeAdapter[UseChatRequest] = TypeAdapter(UseChatRequest)


def _string(value: object) -> str | None:
    return value if isinstance(value, str) and value else None


def _is_image_type(media: str | None) -> bool:
    return media is not None and media.strip().lower().startswith("image/")


def _source(field: str, value: str | None, media: str | None) -> ImageBody:
    """An image given as a URL (``data:``, http(s)) or, in v4, as bare base64."""
    if value is not None and value.partition(":")[0].lower() in ("data", "http", "https"):
        return image_body(field, url=value, media_type=media)
    return image_body(field, data=value, media_type=media)


def _image_of(part: Mapping[str, Any], field: str) -> ImageBody | None:
    """The image of a ``file`` part of an image type or of a v4 ``image`` part."""
    kind = part["type"]
    if kind not in _MEDIA_PARTS:
        return None
    media = _string(part.get("mediaType")) or _string(part.get("mimeType"))
    if kind == "image":
        return _source(field, _string(part.get("image")) or _string(part.get("url")), media)
    if not _is_image_type(media):
        raise unsupported_part(field, f"file ({media})" if media else "file")
    return _source(field, _string(part.get("url")) or _string(part.get("data")), media)


def _carries_no_prompt(part: Mapping[str, Any]) -> bool:
    return True  # step-start, reasoning, data-*, tool parts: passed over


def _has_text(parts: list[UiPart]) -> bool:
    return any(part["type"] == "text" for part in parts)


def _attachments(message: UiMessage, index: int) -> Prompt:
    """A v4 message's ``experimental_attachments`` (``{name?, contentType?, url}``): the images
    among them; any other attachment is a 400."""
    where = f"messages[{index}].experimental_attachments"
    attachments = message.get("experimental_attachments")
    if not isinstance(attachments, list):
        return Prompt("", where)
    images: list[ImageBody] = []
    fields: list[str] = []
    for number, attachment in enumerate(attachments):
        field = f"{where}[{number}]"
        item = attachment if isinstance(attachment, Mapping) else {}
        url, media = _string(item.get("url")), _string(item.get("contentType"))
        if not _is_image_type(media) and not (url or "")[:11].lower() == "data:image/":
            raise unsupported_part(field, f"attachment ({media})" if media else "attachment")
        images.append(image_body(field, url=url, media_type=media))
        fields.append(field)
    return Prompt("", where, tuple(images), tuple(fields))


def parse_use_chat_body(body: Mapping[str, Any]) -> ClientRequest:
    """Read the body ``useChat`` posts (AI SDK v5 ``parts``, v4 ``content``).

    Raises:
        InvalidRequest: the body does not fit ``UseChatRequest``, no user message, no text, a
            file or attachment that is no image, or a bad arena field. (An image is checked by
            the round, which refuses it with ``ImageError``.)
    """
    envelope = validate_envelope(_USE_CHAT_REQUEST, body)
    index, message = newest_user_message(envelope["messages"])
    read: list[Prompt] = []
    prompt: Prompt | None = None
    parts = message.get("parts")
    if parts is not None:
        read.append(
            prompt_of_parts(parts, f"messages[{index}].parts", _image_of, skip=_carries_no_prompt)
        )
        prompt = read[-1] if _has_text(parts) else None
    if prompt is None:
        content = message.get("content")
        where = f"messages[{index}].content"
        if isinstance(content, str):
            prompt = Prompt(content, where)
        elif content is not None:  # a v4 message built from model content parts
            read.append(prompt_of_parts(content, where, _image_of, skip=_carries_no_prompt))
            prompt = read[-1] if _has_text(content) else None
    read.append(_attachments(message, index))
    images = tuple(image for each in read for image in each.images)
    fields = tuple(field for each in read for field in each.image_fields)
    if prompt is None and images:  # an image alone asks too
        prompt = Prompt("", f"messages[{index}]")
    if prompt is None:
        raise InvalidRequest(
            "The user message has no text",
            details={f"messages[{index}]": ["no text part, no string content and no image"]},
        )
    request = build_request(
        Prompt(prompt.text, prompt.field, images, fields), extensions=[("", envelope)]
    )
    return ClientRequest(request)
