"""OpenAI chat completions with one answer per request: the framing of the arena's chat front.

Clients such as Open WebUI show ``choices[0]`` of each chunk and nothing else, so the chat front
(``arena_api.services.openai_chat``) writes one text per request and this module frames it:

    streaming      role chunk (+ top-level ``omni_arena``: the matchup, when there is one)
                   -> one chunk per piece of text -> a ``finish_reason: "stop"`` chunk
                   -> ``data: [DONE]``
    not streaming  one ``chat.completion`` object (the helper tasks' answers)

Ingress (``read_chat_call``) reads what the front needs of a chat-completions body: the model,
the stream flag, the newest user message and the text of every message before it.
"""

from __future__ import annotations

import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any

from arena_api.core.errors import InvalidRequest
from arena_api.core.models import ChatMessage, Role
from arena_api.core.requests import ChatCall
from arena_api.protocols._framing import SSE_DONE, sse_data
from arena_api.protocols._ingress import is_foreign_envelope, newest_user_message
from arena_api.protocols.openai_sse import message_text, stream_flag

__all__ = ["OpenAiTextStream", "completion_body", "read_chat_call"]

_ROLES: Mapping[str, Role] = {
    "system": "system",
    "developer": "system",
    "user": "user",
    "assistant": "assistant",
}


class OpenAiTextStream:
    """Frames one answer, piece by piece, as ``chat.completion.chunk`` events on ``choices[0]``."""

    media_type = "text/event-stream"

    def __init__(self, model: str) -> None:
        self._model = model
        self._id = _completion_id()
        self._created = int(time.time())

    def start(self, metadata: Mapping[str, Any] | None = None) -> bytes:
        extensions = {"omni_arena": dict(metadata)} if metadata else None
        return self._chunk({"role": "assistant", "content": ""}, None, extensions)

    def text(self, piece: str) -> bytes:
        return self._chunk({"content": piece}, None) if piece else b""

    def finish(self) -> bytes:
        return self._chunk({}, "stop") + SSE_DONE

    def _chunk(
        self,
        delta: Mapping[str, str],
        finish: str | None,
        extensions: Mapping[str, Any] | None = None,
    ) -> bytes:
        return sse_data(
            {
                "id": self._id,
                "object": "chat.completion.chunk",
                "created": self._created,
                "model": self._model,
                "choices": [{"index": 0, "delta": delta, "finish_reason": finish}],
                **(extensions or {}),
            }
        )


def _completion_id() -> str:
    return f"chatcmpl-{uuid.uuid4().hex}"


def completion_body(model: str, content: str) -> dict[str, Any]:
    """A non-streaming ``chat.completion`` holding ``content``."""
    return {
        "id": _completion_id(),
        "object": "chat.completion",
        "created": int(time.time()),
        "model": model,
        "choices": [
            {
                "index": 0,
                "message": {"role": "assistant", "content": content},
                "finish_reason": "stop",
                "logprobs": None,
            }
        ],
        "usage": {"prompt_tokens": 0, "completion_tokens": 0, "total_tokens": 0},
    }


def _history_text(message: Mapping[str, Any]) -> str | None:
    """An earlier message's text; parts that are not text (an image shown before) are left out."""
    try:
        return message_text(message, "history", other_parts="skip") or None
    except InvalidRequest:
        return None


def _history(messages: Sequence[Any]) -> tuple[ChatMessage, ...]:
    history = []
    for message in messages:
        if not isinstance(message, Mapping):
            continue
        role = _ROLES.get(str(message.get("role")))
        text = _history_text(message)
        if role is not None and text:
            history.append(ChatMessage(role=role, content=text))
    return tuple(history)


def read_chat_call(
    body: Any, *, chat_id: str | None = None, user_id: str | None = None
) -> ChatCall | None:
    """Read a chat-completions body for the chat front; ``None`` for any other body (the
    arena's own ``{prompt, ...}``, which the matchup route reads).

    Raises:
        InvalidRequest: no user message, a non-text part in the newest user message, a
            ``model`` that is not a string or a ``stream`` that is not a boolean.
    """
    if not is_foreign_envelope(body):
        return None
    model = body.get("model")
    if model is not None and not isinstance(model, str):
        raise InvalidRequest("model must be a string", details={"model": ["must be a string"]})
    stream = stream_flag(body)
    messages: list[Any] = body["messages"]
    index, newest = newest_user_message(messages)
    where = f"messages[{index}].content"
    return ChatCall(
        model=model,
        prompt=message_text(newest, where),
        prompt_field=where,
        history=_history(messages[:index]),
        stream=stream is not False,
        chat_id=chat_id or None,
        user_id=user_id or None,
    )
