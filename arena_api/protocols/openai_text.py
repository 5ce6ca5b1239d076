"""OpenAI chat completions with one answer per request: the framing of the arena's chat front.

Clients such as Open WebUI show ``choices[0]`` of each chunk and nothing else, so the chat front
(``arena_api.services.openai_chat``) writes one text per request and this module frames it:

    streaming      role chunk (+ top-level ``omni_arena``: the matchup, when there is one)
                   -> one chunk per piece of text -> a ``finish_reason: "stop"`` chunk
                   -> ``data: [DONE]``
    not streaming  one ``chat.completion`` object (the helper tasks' answers): ``ChatCompletion``

Ingress (``read_chat_call``) reads what the front needs of a chat-completions body: the model,
the stream flag, the newest user message (its text and images) and the text of every message
before it. An earlier message's images are left out: a chat UI resends them with every message
(Open WebUI does), and the arena's follow-up shows the images its stored conversation holds, so
a repeated image is neither read again nor counted twice.
"""

from __future__ import annotations

import contextlib
import time
import uuid
from collections.abc import Mapping, Sequence
from typing import Any, Literal

from typing_extensions import TypedDict  # pydantic needs it for a TypedDict on Python < 3.12

from arena_api.core.errors import InvalidRequest
from arena_api.core.models import ChatMessage, Role
from arena_api.core.requests import ChatCall, EarlierImage
from arena_api.protocols._framing import SSE_DONE, sse_data
from arena_api.protocols._ingress import (
    is_foreign_envelope,
    message_text,
    newest_user_message,
    validate_envelope,
)
from arena_api.protocols.openai_sse import CHAT_COMPLETIONS_REQUEST, OpenAiMessage, openai_prompt

__all__ = ["ChatCompletion", "OpenAiTextStream", "completion_body", "read_chat_call"]

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


class AssistantMessage(TypedDict):
    role: Literal["assistant"]
    content: str


class CompletionChoice(TypedDict):
    index: int
    message: AssistantMessage
    finish_reason: Literal["stop"]
    logprobs: None


class Usage(TypedDict):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(TypedDict):
    """A non-streaming ``chat.completion``: the answer to an Open WebUI helper task."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: Usage


def completion_body(model: str, content: str) -> ChatCompletion:
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


def _history_text(message: OpenAiMessage) -> str | None:
    """An earlier message's text; parts that are not text (an image shown before) are left out."""
    try:
        return message_text(message, "history") or None
    except InvalidRequest:
        return None


def _history(
    messages: Sequence[OpenAiMessage],
) -> tuple[tuple[ChatMessage, ...], tuple[EarlierImage, ...]]:
    """The earlier messages' text, and the images of their user messages (by their place in
    that history); a message whose parts do not read as a prompt shows none."""
    history: list[ChatMessage] = []
    images: list[EarlierImage] = []
    for index, message in enumerate(messages):
        role = _ROLES.get(message["role"])
        text = _history_text(message)
        if role is None or not text:
            continue
        if role == "user" and isinstance(message.get("content"), list):
            with contextlib.suppress(InvalidRequest):
                shown = openai_prompt(message, f"messages[{index}].content")
                images += [
                    EarlierImage(len(history), body, field)
                    for body, field in zip(shown.images, shown.image_fields, strict=True)
                ]
        history.append(ChatMessage(role=role, content=text))
    return tuple(history), tuple(images)


def read_chat_call(
    body: Any, *, chat_id: str | None = None, user_id: str | None = None
) -> ChatCall | None:
    """Read a chat-completions body for the chat front; ``None`` for any other body (the
    arena's own ``{prompt, ...}``, which the matchup route reads).

    Raises:
        InvalidRequest: the body does not fit ``ChatCompletionsRequest`` (a ``model`` that is
            not a string, a ``stream`` that is not a boolean, ...), no user message, or a
            part of the newest user message that is neither text nor an image.
    """
    if not is_foreign_envelope(body):
        return None
    envelope = validate_envelope(CHAT_COMPLETIONS_REQUEST, body)
    stream = envelope.get("stream")
    messages = envelope["messages"]
    index, newest = newest_user_message(messages)
    prompt = openai_prompt(newest, f"messages[{index}].content")
    history, earlier_images = _history(messages[:index])
    return ChatCall(
        model=envelope.get("model"),
        prompt=prompt.text,
        prompt_field=prompt.field,
        history=history,
        earlier_images=earlier_images,
        stream=stream is not False,
        chat_id=chat_id or None,
        user_id=user_id or None,
        images=prompt.images,
        image_fields=prompt.image_fields,
    )
