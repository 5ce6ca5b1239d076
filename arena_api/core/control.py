"""The control plane's view of live matchups: an abort handle and a steer channel each.

A round lives in the process that runs it (``MatchupRegistry``). A stop or steer may reach
another process of the same arena (several replicas behind a load balancer); a ``ControlRelay``
carries it to the one that runs the round and brings the answer back. One process needs no relay:
``LocalRelay`` knows no other replica.
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field
from typing import Literal, Protocol

from arena_api.core.arena import Signal, SteerControl

__all__ = [
    "UNKNOWN_MATCHUP",
    "ControlOutcome",
    "ControlRelay",
    "ControlRequest",
    "LiveMatchup",
    "LocalRelay",
    "MatchupRegistry",
]

#: Why a stop or steer found nothing to act on.
UNKNOWN_MATCHUP = "unknown or finished matchup"


@dataclass(frozen=True)
class ControlRequest:
    """A stop or a steer, as the control plane received it."""

    action: Literal["stop", "steer"]
    matchup_id: uuid.UUID
    token: str | None = None
    instruction: str | None = None


@dataclass(frozen=True)
class ControlOutcome:
    """The ack: done or not, why not, and a machine-readable code when it could not be asked."""

    ok: bool
    reason: str | None = None
    code: str | None = None


class ControlRelay(Protocol):
    """Carries control requests to the process that runs the round."""

    @property
    def replica(self) -> str | None:
        """This process's id among the replicas of a cluster (``None``: it is alone)."""
        ...

    async def forward(self, request: ControlRequest) -> ControlOutcome:
        """Ask the process that runs the round; its answer, or why there is none."""
        ...


class LocalRelay:
    """One process: every live round is in its own registry, so there is nobody to ask."""

    replica: str | None = None

    async def forward(self, request: ControlRequest) -> ControlOutcome:
        return ControlOutcome(False, UNKNOWN_MATCHUP)


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

    def steer(self, matchup_id: uuid.UUID, instruction: str) -> ControlOutcome:
        """Restart a live round with ``instruction``."""
        live = self._live.get(matchup_id)
        if live is None or live.abort.is_set():
            return ControlOutcome(False, UNKNOWN_MATCHUP)
        if not live.steer.request(instruction):
            return ControlOutcome(False, "a slot has already completed")
        return ControlOutcome(True)

    def stop_all(self) -> int:
        """Abort every live round (a server that shuts down); how many were still running."""
        return sum(self.stop(matchup_id) for matchup_id in list(self._live))

    def __len__(self) -> int:
        return len(self._live)
