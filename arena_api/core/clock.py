"""Time as the services read it: a port, so tests set it instead of sleeping.

``Clock.monotonic`` measures durations (caches, timeouts); ``Clock.now`` stamps records with
the wall-clock time. ``SYSTEM_CLOCK`` is the real one, every service's default. The core's
pure pieces that only measure durations (``ArenaCore``, ``JoinBroker``, the rate limiter, the
token service) take a plain ``Callable[[], float]``: pass them ``clock.monotonic``.
"""

from __future__ import annotations

import time
from datetime import UTC, datetime
from typing import Protocol

__all__ = ["SYSTEM_CLOCK", "Clock", "SystemClock"]


class Clock(Protocol):
    def monotonic(self) -> float:
        """Seconds from an arbitrary start that never goes back: for durations only."""
        ...

    def now(self) -> datetime:
        """The current time, timezone-aware, in UTC."""
        ...


class SystemClock:
    """The machine's clocks."""

    def monotonic(self) -> float:
        return time.monotonic()

    def now(self) -> datetime:
        return datetime.now(UTC)


SYSTEM_CLOCK: Clock = SystemClock()
