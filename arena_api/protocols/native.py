"""Native SSE, the default: one ``event:``/``data:`` pair per public event, no trailer."""

from __future__ import annotations

from collections.abc import Mapping

from arena_api.core.events import PublicEvent

__all__ = ["NativeSSE"]


class NativeSSE:
    name = "sse"
    media_type = "text/event-stream"
    in_band_errors = False

    @property
    def headers(self) -> Mapping[str, str]:
        return {}

    def serialize(self, event: PublicEvent) -> bytes:
        return f"event: {event.type}\ndata: {event.wire_json()}\n\n".encode()

    def finalize(self) -> bytes:
        return b""
