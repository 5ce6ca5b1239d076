"""What the three ingress parsers share: finding the prompt and reading the arena fields.

Only the newest user message becomes the prompt: the arena rebuilds a conversation's history from
the winning answers it stored, so a client transcript is never context. The arena fields
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
from collections.abc import Iterable, Mapping, Sequence
from typing import Annotated, Any, Literal, NotRequired, TypeVar

from pydantic import ConfigDict, Field, TypeAdapter, ValidationError, with_config
from pydantic.json_schema import SkipJsonSchema
from typing_extensions import TypedDict  # pydantic needs it for a TypedDict on Python < 3.12

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ChatRequest, parse_command

__all__ = [
    "ARENA_FIELDS",
    "ArenaFields",
    "ContentPart",
    "build_request",
    "invalid_envelope",
    "is_foreign_envelope",
    "message_text",
    "messages_field",
    "newest_user_message",
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


@with_config(IGNORE_EXTRA)
class ContentPart(TypedDict):
    """A content part; only ``text`` parts are taken (an image or file is a 400)."""

    type: str
    text: NotRequired[str]


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
    """The 400 for a content part the arena cannot send to both models (images, audio, files)."""
    return InvalidRequest(
        f"Unsupported content part '{kind}' at {where}: the arena takes text only",
        details={where: [f"unsupported content part '{kind}'; only text is supported"]},
    )


def build_request(
    prompt: str,
    *,
    prompt_field: str,
    extensions: Iterable[tuple[str, Mapping[str, Any]]],
    defaults: Mapping[str, tuple[Any, str]] | None = None,
) -> ChatRequest:
    """Validate ``prompt`` plus the arena fields found in ``extensions`` into a ``ChatRequest``.

    Args:
        prompt: the newest user message's text.
        prompt_field: where the prompt came from, to name it in an error.
        extensions: (prefix, mapping) pairs to read arena fields from; the first one to carry a
            field wins. The prefix names the field in an error (``"omni_arena."``).
        defaults: ``(value, field to blame)`` by wire name, used when no extension carries the
            field (OpenAI ``user`` seeding ``sessionId``).

    Raises:
        InvalidRequest: with ``details`` naming the client's own field.
    """
    data: dict[str, Any] = {"prompt": prompt}
    where: dict[str, str] = {"prompt": prompt_field}
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
        details = {where.get(key, key): messages for key, messages in (exc.details or {}).items()}
        raise InvalidRequest(exc.message, details=details) from None


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
            if part["type"] == "text":
                texts.append(part.get("text", ""))
            elif other_parts == "refuse":
                raise unsupported_part(f"{where}[{number}]", part["type"])
        return "\n".join(texts)
    raise InvalidRequest(
        "The user message has no text content",
        details={where: ["must be a string or a list of text parts"]},
    )
