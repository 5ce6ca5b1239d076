"""The egress port: how one protocol frames the public event stream."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Protocol

from arena_api.core.events import PublicEvent

__all__ = ["EventAdapter"]


class EventAdapter(Protocol):
    """Frames public events for one wire protocol.

    ``serialize`` may keep per-stream state (open messages, counters), so an adapter instance
    serves one response only.
    """

    name: str
    media_type: str
    #: A pre-stream failure is delivered as a terminal event at 200 (AG-UI), not as a status.
    in_band_errors: bool

    @property
    def headers(self) -> Mapping[str, str]: ...

    def serialize(self, event: PublicEvent) -> bytes: ...

    def finalize(self) -> bytes: ...
