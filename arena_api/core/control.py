"""The control plane's view of live matchups: an abort handle and a steer channel each."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from arena_api.core.arena import Signal, SteerControl

__all__ = ["LiveMatchup", "MatchupRegistry"]


@dataclass
class LiveMatchup:
    """What the control plane may do to one running round."""

    token_hash: str | None
    abort: Signal = field(default_factory=Signal)
    steer: SteerControl = field(default_factory=SteerControl)


class MatchupRegistry:
    """Live matchups by id; a round registers when it starts and is released when it ends."""

    def __init__(self) -> None:
        self._live: dict[uuid.UUID, LiveMatchup] = {}

    def register(self, matchup_id: uuid.UUID, live: LiveMatchup) -> None:
        self._live[matchup_id] = live

    def release(self, matchup_id: uuid.UUID) -> None:
        self._live.pop(matchup_id, None)

    def get(self, matchup_id: uuid.UUID) -> LiveMatchup | None:
        return self._live.get(matchup_id)

    def stop(self, matchup_id: uuid.UUID) -> bool:
        """Abort a live round; ``False`` when unknown, finished or already stopped."""
        live = self._live.get(matchup_id)
        if live is None or live.abort.is_set():
            return False
        live.abort.set()
        return True

    def steer(self, matchup_id: uuid.UUID, instruction: str) -> tuple[bool, str | None]:
        """Restart a live round with ``instruction``; (accepted, reason when refused)."""
        live = self._live.get(matchup_id)
        if live is None or live.abort.is_set():
            return False, "unknown or finished matchup"
        if not live.steer.request(instruction):
            return False, "a slot has already completed"
        return True, None

    def stop_all(self) -> int:
        """Abort every live round (a server that shuts down); how many were still running."""
        return sum(self.stop(matchup_id) for matchup_id in list(self._live))

    def __len__(self) -> int:
        return len(self._live)
