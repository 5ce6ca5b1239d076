"""Schemas of one Server-Sent Event, as OpenAPI 3.1 tools read a ``text/event-stream`` schema.

Before OpenAPI 3.2 (``itemSchema``), a ``text/event-stream`` response's ``schema`` describes one
event: an object with the fields of the SSE frame (``event``, ``data``, ``id``, ``retry``). The
JSON in ``data`` is described with ``contentMediaType`` and ``contentSchema`` (JSON Schema
2020-12), pointing at the event's own model.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from pydantic import BaseModel

from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.openapi._bodies import ChatCompletionChunk
from arena_api.protocols.openai_sse import StreamError

__all__ = ["EVENT_MODELS", "STREAM_MODELS", "stream_schemas"]

#: The public events, framed one per SSE event by the native protocol (``event: <type>``).
EVENT_MODELS: tuple[type[BaseModel], ...] = (
    MatchupStarted,
    Token,
    SlotError,
    SlotDone,
    Steered,
    RunError,
    MatchupDone,
)
#: Further models the stream schemas point at.
STREAM_MODELS: tuple[Any, ...] = (ChatCompletionChunk, StreamError)  # models and TypedDicts

_DONE = "[DONE]"


def _json_data(schema: Mapping[str, Any]) -> dict[str, Any]:
    return {
        "type": "string",
        "contentMediaType": "application/json",
        "contentSchema": dict(schema),
    }


def _native_event(model: type[BaseModel], ref: str) -> dict[str, Any]:
    name = model.model_fields["type"].default
    return {
        "type": "object",
        "title": f"native `{name}` event",
        "required": ["event", "data"],
        "properties": {"event": {"const": name}, "data": _json_data({"$ref": ref})},
    }


def stream_schemas(ref: Mapping[Any, str]) -> dict[str, Any]:
    """The event schemas, by component name; ``ref`` maps each model to its ``$ref``."""
    # An SSE frame without an `event:` field is a `message` event, as EventSource reads it.
    data_only = {"type": "object", "required": ["data"]}
    message = {"const": "message"}
    return {
        "NativeSseEvent": {
            "description": "One public event of a round, framed by the native protocol "
            "(`event: <type>` and its JSON as `data`).",
            "oneOf": [_native_event(model, ref[model]) for model in EVENT_MODELS],
        },
        "ProtocolSseEvent": {
            **data_only,
            "description": "One event of the AG-UI, AI SDK UI message stream or OpenAI chunk "
            "framing: a `data:` line of JSON (the AI SDK and OpenAI streams end with "
            f"`data: {_DONE}`). See docs/protocols.md.",
            "properties": {"event": message, "data": {"type": "string"}},
        },
        "ChatSseEvent": {
            "description": "One event of `POST /api/arena/chat`, in the protocol asked for.",
            "anyOf": [
                {"$ref": "#/components/schemas/NativeSseEvent"},
                {"$ref": "#/components/schemas/ProtocolSseEvent"},
            ],
        },
        "OpenAiSseEvent": {
            **data_only,
            "description": f"One `chat.completion.chunk`, a stream error, or the final `{_DONE}`.",
            "properties": {
                "event": message,
                "data": {
                    "if": {"const": _DONE},
                    "then": {"const": _DONE},
                    "else": _json_data(
                        {"anyOf": [{"$ref": ref[model]} for model in STREAM_MODELS]}
                    ),
                },
            },
        },
    }
