"""Byte framing shared by the adapters: compact JSON, SSE ``data:`` events, JSON Lines."""

from __future__ import annotations

import json
from typing import Any

__all__ = ["compact_json", "json_line", "sse_data", "SSE_DONE"]

_ENCODER = json.JSONEncoder(ensure_ascii=False, separators=(",", ":"))

#: The sentinel that ends an OpenAI or AI SDK stream.
SSE_DONE = b"data: [DONE]\n\n"


def compact_json(payload: Any) -> str:
    """One line of JSON (string escapes keep it on one line)."""
    return _ENCODER.encode(payload)


def sse_data(payload: Any) -> bytes:
    """One SSE event: a single ``data:`` line, LF framing (AG-UI clients split on blank lines)."""
    return b"data: " + _ENCODER.encode(payload).encode() + b"\n\n"


def json_line(payload: Any) -> bytes:
    """One JSON Lines record."""
    return _ENCODER.encode(payload).encode() + b"\n"
