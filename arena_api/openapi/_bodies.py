"""Pydantic models of the bodies the routes build or read by hand, for the OpenAPI document only.

The arena's own commands, views and events have models in ``arena_api.core``; these describe the
rest: the error body, ``/health``, the OpenAI shapes (model list, completion, chunk) and the
foreign request envelopes the protocol parsers read (AG-UI ``RunAgentInput``, an AI SDK
``useChat`` body, an OpenAI chat-completions body). Nothing serialises through them: the
schemathesis test checks that the server's answers still fit them.

A field typed ``X | SkipJsonSchema[None] = None`` is one the server omits, never sends as
``null``.
"""

from __future__ import annotations

import uuid
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel
from pydantic.json_schema import SkipJsonSchema

from arena_api.core.events import MatchupStarted
from arena_api.core.models import Slot

__all__ = [
    "AgUiMessage",
    "ArenaFields",
    "ChatCompletion",
    "ChatCompletionChunk",
    "ChatCompletionsRequest",
    "ContentPart",
    "ErrorBody",
    "Health",
    "LoginForm",
    "LoginRequest",
    "SignedIn",
    "ModelList",
    "ModelObject",
    "OpenAiMessage",
    "RunAgentInput",
    "StreamError",
    "UiMessage",
    "UseChatRequest",
]

MessageRole = Literal["system", "developer", "user", "assistant", "tool"]
#: A ``messages`` array must hold a user message: the newest one is the prompt (else a 400).
_HAS_USER_MESSAGE: dict[str, Any] = {
    "contains": {"type": "object", "properties": {"role": {"const": "user"}}, "required": ["role"]}
}


def _messages() -> Any:
    return Field(
        min_length=1,
        description="The newest user message is the prompt.",
        json_schema_extra=_HAS_USER_MESSAGE,
    )


class _Camel(BaseModel):
    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)


class _Snake(BaseModel):
    model_config = ConfigDict(frozen=True)


# -- the arena's own answers -----------------------------------------------------------------


class ErrorBody(_Snake):
    """Every error answer of the API (``arena_api.routes.errors``)."""

    error: str = Field(description="What went wrong, in words.")
    code: str = Field(
        description="The machine-readable reason: `invalid_request`, `invalid_json`, "
        "`unauthorized`, `matchup_not_found`, `already_voted`, `rate_limited`, "
        "`database_unavailable`, ..."
    )
    details: dict[str, list[str]] | SkipJsonSchema[None] = Field(
        default=None,
        description="Messages per offending field (by the name the client wrote), or the "
        "limit a 429 hit.",
    )


class MigrationState(_Snake):
    current: str | None = Field(description="The revision the database is at.")
    head: str = Field(description="The newest revision this server ships.")


class Health(_Camel):
    """``GET /health``: 200 when healthy, 503 otherwise (same body)."""

    status: Literal["ok", "degraded", "shutting_down"]
    database: Literal["reachable", "unreachable"]
    migration: MigrationState
    version: str
    uptime_seconds: float


# -- the passphrase login (``ARENA_PASSPHRASE``) ----------------------------------------------


class LoginRequest(_Snake):
    """``POST /login`` from a script."""

    passphrase: str


class LoginForm(_Snake):
    """``POST /login`` from the login page."""

    passphrase: str
    next: str | SkipJsonSchema[None] = Field(
        default=None, description="Where to go after signing in: a path on this site."
    )


class SignedIn(_Camel):
    """A session opened; its cookies are set. Unsafe requests that ride the session send
    ``csrf_token`` as ``X-CSRF-Token``."""

    ok: Literal[True]
    csrf_token: str
    expires_at: str = Field(description="ISO 8601, UTC.")


# -- OpenAI's shapes -------------------------------------------------------------------------


class ModelObject(_Snake):
    """One entry of the model list (OpenAI's model object; ``name`` is Open WebUI's label)."""

    id: str
    object: Literal["model"]
    created: int = Field(description="The server's start time (the roster has none).")
    owned_by: str
    name: str
    description: str | SkipJsonSchema[None] = None


class ModelList(_Snake):
    object: Literal["list"]
    data: list[ModelObject]


class AssistantMessage(_Snake):
    role: Literal["assistant"]
    content: str


class CompletionChoice(_Snake):
    index: int
    message: AssistantMessage
    finish_reason: Literal["stop"]
    logprobs: None


class Usage(_Snake):
    prompt_tokens: int
    completion_tokens: int
    total_tokens: int


class ChatCompletion(_Snake):
    """A non-streaming ``chat.completion``: the answer to an Open WebUI helper task."""

    id: str
    object: Literal["chat.completion"]
    created: int
    model: str
    choices: list[CompletionChoice]
    usage: Usage


class ChunkDelta(_Snake):
    role: Literal["assistant"] | SkipJsonSchema[None] = None
    content: str | SkipJsonSchema[None] = None


class ChunkChoice(_Snake):
    index: int = Field(description="0 for slot A, 1 for slot B.")
    delta: ChunkDelta
    finish_reason: Literal["stop"] | None


class SlotErrorNote(_Snake):
    slot: Slot
    message: str


class SteeredNote(_Snake):
    instruction: str


class ChatCompletionChunk(_Snake):
    """One ``chat.completion.chunk``; a matchup carries one choice per slot, in slot order."""

    id: str
    object: Literal["chat.completion.chunk"]
    created: int
    model: str
    choices: list[ChunkChoice]
    omni_arena: MatchupStarted | SkipJsonSchema[None] = Field(
        default=None, description="On the first chunk: the matchup (its started event)."
    )
    omni_arena_error: SlotErrorNote | SkipJsonSchema[None] = None
    omni_arena_steered: SteeredNote | SkipJsonSchema[None] = None


class StreamErrorDetail(_Snake):
    message: str
    type: Literal["omni_arena_error"]
    code: str


class StreamError(_Snake):
    """A round that failed after its stream began, on the OpenAI framing."""

    error: StreamErrorDetail


# -- foreign request envelopes ---------------------------------------------------------------


class ArenaFields(_Camel):
    """The arena's own request fields, where another protocol's envelope carries them
    (snake_case spellings are accepted too)."""

    session_id: str | SkipJsonSchema[None] = Field(default=None, min_length=1, max_length=200)
    conversation_id: uuid.UUID | SkipJsonSchema[None] = None
    arena: bool | SkipJsonSchema[None] = None
    join_key: str | SkipJsonSchema[None] = Field(default=None, min_length=1, max_length=200)


class ContentPart(_Snake):
    """A content part; only ``text`` parts are taken (an image or file is a 400)."""

    type: str
    text: str | SkipJsonSchema[None] = None


class OpenAiMessage(_Snake):
    role: MessageRole
    content: str | list[ContentPart] | None = None


class SessionUser(_Snake):
    id: str


class ChatCompletionsRequest(_Snake):
    """An OpenAI chat-completions body. The prompt is the newest user message; sampling knobs
    and tools are ignored."""

    model: str | SkipJsonSchema[None] = Field(
        default=None,
        description="`arena-duel`, `arena-a`, `arena-b`, `arena-single` or a roster model are "
        "the chat front's; any other id gets a matchup with both slots as `choices[0]` and "
        "`choices[1]`.",
    )
    messages: list[OpenAiMessage] = _messages()
    stream: bool | SkipJsonSchema[None] = Field(
        default=None, description="`false` is refused, except on a helper task."
    )
    user: str | SessionUser | SkipJsonSchema[None] = Field(
        default=None, description="Seeds `sessionId`."
    )
    omni_arena: ArenaFields | SkipJsonSchema[None] = None


class AgUiMessage(_Snake):
    id: str | SkipJsonSchema[None] = None
    role: MessageRole
    content: str | list[ContentPart] | SkipJsonSchema[None] = None


class RunAgentInput(_Camel):
    """An AG-UI ``RunAgentInput`` (0.1.x or 1.0); arena fields ride ``forwardedProps``."""

    thread_id: str | SkipJsonSchema[None] = Field(default=None, min_length=1)
    run_id: str | SkipJsonSchema[None] = Field(default=None, min_length=1)
    messages: list[AgUiMessage] = _messages()
    tools: list[Any] | SkipJsonSchema[None] = None
    context: list[Any] | SkipJsonSchema[None] = None
    state: Any = None
    forwarded_props: ArenaFields | SkipJsonSchema[None] = None


class UiPart(_Snake):
    type: str
    text: str | SkipJsonSchema[None] = None


class UiMessage(_Snake):
    id: str | SkipJsonSchema[None] = None
    role: MessageRole
    parts: list[UiPart] | SkipJsonSchema[None] = Field(default=None, description="AI SDK v5.")
    content: str | SkipJsonSchema[None] = Field(default=None, description="AI SDK v4.")


class UseChatRequest(ArenaFields):
    """The body ``useChat`` posts (AI SDK v5 ``parts`` or v4 ``content``); arena fields ride
    the top level (``useChat({ body })``)."""

    id: str | SkipJsonSchema[None] = None
    messages: list[UiMessage] = _messages()
    trigger: str | SkipJsonSchema[None] = None
