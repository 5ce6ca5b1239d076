"""What the three ingress parsers share: finding the prompt and reading the arena fields.

Only the newest user message becomes the prompt: the arena rebuilds a conversation's history from
the winning answers it stored, so a client transcript is never context. The arena fields
(``sessionId``, ``conversationId``, ``arena``, ``joinKey``) come from each protocol's extension
slot and are validated exactly as on the native body; errors name the field as the client wrote it.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from arena_api.core.errors import InvalidRequest
from arena_api.core.requests import ChatRequest, parse_command

__all__ = [
    "ARENA_FIELDS",
    "build_request",
    "is_foreign_envelope",
    "newest_user_message",
    "unsupported_part",
]

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


def newest_user_message(
    messages: Sequence[Any], role_key: str = "role"
) -> tuple[int, Mapping[str, Any]]:
    """The index and object of the last message whose role is ``user``.

    Raises:
        InvalidRequest: no message has the user role.
    """
    for index in range(len(messages) - 1, -1, -1):
        message = messages[index]
        if isinstance(message, Mapping) and message.get(role_key) == "user":
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
