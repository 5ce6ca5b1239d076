"""What the three ingress parsers share: finding the prompt and reading the arena fields.

Only the newest user message becomes the prompt (``Prompt``: its text and its images): the arena
rebuilds a conversation's history from the winning answers and the images it stored, so a client
transcript is never context, and an image an earlier message repeats is never read again. Each
protocol says which of its content parts are images (``ImageOf``); the parts that are neither
text nor image (audio, a PDF) are a 400. An image is taken as sent (``ImageBody``) and checked
by the round before anything is stored; its refusal names the part that held it
(``messages[3].content[1]``). The arena fields
(``sessionId``, ``conversationId``, ``arena``, ``joinKey``) come from each protocol's extension
slot and are validated exactly as on the native body; errors name the field as the client wrote it.

Each protocol describes its envelope once, as ``TypedDict`` schemas validated by a module-level
``TypeAdapter`` (the validation runs in pydantic-core and builds no model instance); the OpenAPI
document shows the same schemas. ``validate_envelope`` turns pydantic's ``ValidationError`` into
the arena's ``InvalidRequest``, each message under the field path the client wrote
(``messages[3].content``). What a schema cannot say (which message is the prompt, which content
parts the arena takes) the parsers check after it.
"""

from __future__ import annotations

import uuid
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Annotated, Any, NotRequired, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict  # pydantic needs it for a TypedDict on Python < 3.12

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ChatRequest, ImageBody, parse_command

__all__ = [
    "ARENA_FIELDS",
    "ArenaFields",
    "ImageOf",
    "Prompt",
    "build_request",
    "image_body",
    "invalid_envelope",
    "is_foreign_envelope",
    "message_prompt",
    "message_text",
    "messages_field",
    "newest_user_message",
    "prompt_of_parts",
    "unsupported_part",
    "validate_envelope",
]

EnvelopeT = TypeVar("EnvelopeT")

#: Unknown members are ignored (clients send fields of their own) and dropped from the result.
IGNORE_EXTRA = ConfigDict(extra="ignore")

_Id = Annotated[str, Field(min_length=1, max_length=200)]


@with_config(IGNORE_EXTRA)
class ArenaFields(TypedDict):
    """The arena's own request fields, where another protocol's envelope carries them
    (snake_case spellings are accepted too)."""

    sessionId: NotRequired[_Id | None]
    conversationId: NotRequired[uuid.UUID | None]
    arena: NotRequired[bool | None]
    joinKey: NotRequired[_Id | None]
    session_id: NotRequired[SkipJsonSchema[_Id | None]]
    conversation_id: NotRequired[SkipJsonSchema[uuid.UUID | None]]
    join_key: NotRequired[SkipJsonSchema[_Id | None]]


#: A ``messages`` array must hold a user message: the newest one is the prompt.
#: ``newest_user_message`` enforces both (with its own 400); pydantic only shows them.
_HAS_USER_MESSAGE: dict[str, Any] = {
    "minItems": 1,
    "contains": {"type": "object", "properties": {"role": {"const": "user"}}, "required": ["role"]},
}


def messages_field() -> Any:
    """The ``Field`` of every envelope's ``messages`` (for an ``Annotated`` list)."""
    return Field(
        description="The newest user message is the prompt.", json_schema_extra=_HAS_USER_MESSAGE
    )


def _field_path(loc: Sequence[int | str], body: object, *, missing: bool) -> str:
    """``loc`` as the client wrote it (``messages[3].content``), walking ``body`` alongside so
    that pydantic's union branch tags (``str``, ``list[ContentPart]``) are left out."""
    path = ""
    value: object = body
    for number, item in enumerate(loc):
        if isinstance(item, int) and isinstance(value, list) and 0 <= item < len(value):
            path, value = f"{path}[{item}]", value[item]
        elif isinstance(value, Mapping) and item in value:
            path, value = f"{path}.{item}" if path else str(item), value[item]
        elif missing and number == len(loc) - 1:  # the member the error says is missing
            path = f"{path}.{item}" if path else str(item)
        # else: a union branch's tag, not a member of the body
    return path or "body"


def invalid_envelope(exc: ValidationError, body: object) -> InvalidRequest:
    """The 400 for an envelope that does not fit its schema: every message under its field path;
    the message names the first offending field."""
    details: dict[str, list[str]] = {}
    for error in exc.errors(include_url=False, include_context=False, include_input=False):
        where = _field_path(error["loc"], body, missing=error["type"] == "missing")
        messages = details.setdefault(where, [])
        if error["msg"] not in messages:
            messages.append(error["msg"])
    (path, messages), *others = details.items()
    more = f" (and {len(others)} more field{'s' if len(others) > 1 else ''})" if others else ""
    return InvalidRequest(f"{path}: {'; '.join(messages)}{more}", details=details)


def validate_envelope(adapter: TypeAdapter[EnvelopeT], body: Mapping[str, Any]) -> EnvelopeT:
    """``body`` validated by ``adapter`` (a protocol's envelope schema).

    Raises:
        InvalidRequest: the body does not fit; ``details`` names each offending field.
    """
    try:
        return adapter.validate_python(body)
    except ValidationError as exc:
        raise invalid_envelope(exc, body) from None


#: The arena's own request fields, by wire name, with the snake_case spellings also accepted.
ARENA_FIELDS: Mapping[str, str] = {
    "sessionId": "sessionId",
    "session_id": "sessionId",
    "conversationId": "conversationId",
    "conversation_id": "conversationId",
    "arena": "arena",
    "joinKey": "joinKey",
    "join_key": "joinKey",
}


def is_foreign_envelope(body: object) -> bool:
    """A ``messages`` array and no ``prompt``: another protocol's envelope, not the arena's."""
    return (
        isinstance(body, Mapping)
        and isinstance(body.get("messages"), list)
        and ("prompt" not in body)
    )


MessageT = TypeVar("MessageT", bound=Mapping[str, Any])


def newest_user_message(messages: Sequence[MessageT]) -> tuple[int, MessageT]:
    """The index and object of the last message whose role is ``user``.

    Raises:
        InvalidRequest: no message has the user role.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if message.get("role") == "user":
            return index, message
    raise InvalidRequest(
        "The request has no user message to answer",
        details={"messages": ["no message with role 'user'"]},
    )


def unsupported_part(where: str, kind: str) -> InvalidRequest:
    """The 400 for a content part the arena cannot send to both models (audio, a document)."""
    return InvalidRequest(
        f"Unsupported content part '{kind}' at {where}: the arena takes text and images",
        details={where: [f"unsupported content part '{kind}'; only text and images are supported"]},
    )


@dataclass(frozen=True)
class Prompt:
    """The newest user message as a round reads it.

    ``field`` names its text in an error (``messages[3].content``); ``image_fields`` name its
    images, one each (``messages[3].content[1]``).
    """

    text: str
    field: str
    images: tuple[ImageBody, ...] = ()
    image_fields: tuple[str, ...] = ()


#: A protocol's reading of one content part that is not text: the image it carries, or ``None``
#: when it is no image (the part is then refused). Called with the part and its field; raises
#: ``InvalidRequest`` for an image part it cannot read (no source, a provider's file handle).
ImageOf = Callable[[Mapping[str, Any], str], ImageBody | None]


def image_body(
    field: str, *, data: str | None = None, url: str | None = None, media_type: str | None = None
) -> ImageBody:
    """An image as a part carried it: base64 ``data`` or a ``url`` (``data:`` or http(s)).

    Raises:
        InvalidRequest: neither (or an empty one), named at ``field``.
    """
    if not data and not url:
        raise InvalidRequest(
            f"{field}: the image part carries no image",
            details={field: ["needs the image as base64 data or a URL"]},
        )
    if media_type is not None and (not isinstance(media_type, str) or len(media_type) > 200):
        media_type = None  # only ever a hint: the type is read from the bytes
    return ImageBody(data=data or None, url=None if data else url, media_type=media_type)


def message_prompt(message: Mapping[str, Any], where: str, image_of: ImageOf) -> Prompt:
    """The newest user message's text (its string content, or its text parts joined by
    newlines) and its images, in order.

    Args:
        where: the field of the message's content (``messages[3].content``).
        image_of: the protocol's reading of a part that is not text.

    Raises:
        InvalidRequest: a part that is neither text nor image (named at ``where[i]``), an image
            part without an image, or no content.
    """
    content = message.get("content")
    if isinstance(content, str):
        return Prompt(content, where)
    if isinstance(content, list):
        return prompt_of_parts(content, where, image_of)
    raise InvalidRequest(
        "The user message has no text content",
        details={where: ["must be a string or a list of text and image parts"]},
    )


def prompt_of_parts(
    parts: Sequence[Mapping[str, Any]],
    where: str,
    image_of: ImageOf,
    *,
    skip: Callable[[Mapping[str, Any]], bool] = lambda part: False,
) -> Prompt:
    """``message_prompt`` of a list of parts; ``skip`` passes over parts that carry no prompt
    (an AI SDK ``step-start``).

    Raises:
        InvalidRequest: as ``message_prompt``.
    """
    texts: list[str] = []
    images: list[ImageBody] = []
    fields: list[str] = []
    for number, part in enumerate(parts):
        field = f"{where}[{number}]"
        if part["type"] == "text":
            texts.append(part.get("text", ""))
            continue
        image = image_of(part, field)
        if image is not None:
            images.append(image)
            fields.append(field)
        elif not skip(part):
            raise unsupported_part(field, part["type"])
    return Prompt("\n".join(texts), where, tuple(images), tuple(fields))


def _request_field(key: str, prompt: Prompt, where: Mapping[str, str]) -> str:
    """The client's own name of a ``ChatRequest`` error's field."""
    if key == "images":
        return prompt.field
    head, _, rest = key.partition(".")
    if head == "images" and prompt.image_fields:
        index = rest.split(".", 1)[0]
        if index.isdigit() and int(index) < len(prompt.image_fields):
            return prompt.image_fields[int(index)]
    return where.get(key, key)


def build_request(
    prompt: Prompt,
    *,
    extensions: Iterable[tuple[str, Mapping[str, Any]]],
    defaults: Mapping[str, tuple[Any, str]] | None = None,
) -> ChatRequest:
    """Validate ``prompt`` plus the arena fields found in ``extensions`` into a ``ChatRequest``.

    Args:
        prompt: the newest user message's text and images.
        extensions: (prefix, mapping) pairs to read arena fields from; the first one to carry a
            field wins. The prefix names the field in an error (``"omni_arena."``).
        defaults: ``(value, field to blame)`` by wire name, used when no extension carries the
            field (OpenAI ``user`` seeding ``sessionId``).

    Raises:
        InvalidRequest: with ``details`` naming the client's own field.
    """
    data: dict[str, Any] = {"prompt": prompt.text}
    where: dict[str, str] = {"prompt": prompt.field}
    if prompt.images:
        data["images"] = prompt.images
        data["imageFields"] = prompt.image_fields
    for prefix, mapping in extensions:
        for key, name in ARENA_FIELDS.items():
            if name not in data and key in mapping and mapping[key] is not None:
                data[name] = mapping[key]
                where[name] = prefix + key
    for name, (value, field_name) in (defaults or {}).items():
        if name not in data and value is not None:
            data[name] = value
            where[name] = field_name
    try:
        return parse_command(ChatRequest, data)
    except InvalidRequest as exc:
        details: dict[str, list[str]] = {}
        for key, messages in (exc.details or {}).items():
            details.setdefault(_request_field(key, prompt, where), []).extend(messages)
        raise InvalidRequest(exc.message, details=details) from None


def message_text(message: Mapping[str, Any], where: str) -> str:
    """An earlier message's text: its string content, or its text parts joined by newlines;
    any other part (an image shown before, which the stored conversation holds) is left out.

    Raises:
        InvalidRequest: no text content (a string or a list of parts).
    """
    content = message.get("content")
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        return "\n".join(part.get("text", "") for part in content if part["type"] == "text")
    raise InvalidRequest(
        "The message has no text content",
        details={where: ["must be a string or a list of content parts"]},
    )
