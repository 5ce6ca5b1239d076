"""The commands a round and a vote start from, validated once for every caller (HTTP and UI)."""

from __future__ import annotations

import uuid
from collections.abc import Mapping
from typing import Any, TypeVar

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from pydantic.alias_generators import to_camel

from arena_api.core.errors import InvalidRequest
from arena_api.core.records import Vote

__all__ = ["MAX_PROMPT_CHARS", "ChatRequest", "VoteRequest", "parse_command"]

MAX_PROMPT_CHARS = 20_000


class _Command(BaseModel):
    # Unknown members are ignored, so a client may send fields of its own.
    model_config = ConfigDict(
        frozen=True,
        extra="ignore",
        alias_generator=to_camel,
        populate_by_name=True,
    )


CommandT = TypeVar("CommandT", bound=_Command)


class ChatRequest(_Command):
    """``POST /api/arena/chat``'s own body (the other protocols' bodies are mapped onto it)."""

    prompt: str = Field(min_length=1, max_length=MAX_PROMPT_CHARS)
    session_id: str | None = Field(default=None, min_length=1, max_length=200)
    conversation_id: uuid.UUID | None = None
    arena: bool | None = None
    join_key: str | None = Field(default=None, min_length=1, max_length=200)

    @field_validator("prompt", mode="before")
    @classmethod
    def _trim(cls, value: object) -> object:
        return value.strip() if isinstance(value, str) else value


class VoteRequest(_Command):
    matchup_id: uuid.UUID
    matchup_token: str = Field(min_length=1, max_length=4096)
    vote: Vote


def parse_command(model: type[CommandT], data: Mapping[str, Any] | Any) -> CommandT:
    """Validate ``data`` into ``model``.

    Raises:
        InvalidRequest: with ``details`` mapping each offending field (wire name) to messages.
    """
    try:
        return model.model_validate(data)
    except ValidationError as exc:
        details: dict[str, list[str]] = {}
        for error in exc.errors():
            field = ".".join(str(p) for p in error["loc"]) or "body"
            details.setdefault(field, []).append(error["msg"])
        raise InvalidRequest("Invalid request", details=details) from None
