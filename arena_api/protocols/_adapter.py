"""What every egress adapter but native SSE shares (see ``base.EventAdapter``)."""

from __future__ import annotations

from collections.abc import Mapping

from arena_api.core.events import MatchupDone, PublicEvent, RunError
from arena_api.protocols.base import RunContext

__all__ = ["ClosingAdapter"]


class ClosingAdapter:
    """Frames one stream and nothing after its terminal event (``run_error`` or
    ``matchup_done``), whatever comes later. Subclasses frame each event in ``_frame``."""

    in_band_errors = False

    def __init__(self, context: RunContext | None = None) -> None:
        self._ended = False

    @property
    def headers(self) -> Mapping[str, str]:
        return {}

    def serialize(self, event: PublicEvent) -> bytes:
        if self._ended:
            return b""
        frame = self._frame(event)
        if isinstance(event, RunError | MatchupDone):
            self._ended = True
        return frame

    def finalize(self) -> bytes:
        return b""

    def _frame(self, event: PublicEvent) -> bytes:
        raise NotImplementedError
