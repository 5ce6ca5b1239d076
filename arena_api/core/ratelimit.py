"""Sliding-window rate limits per client: ``ARENA_RATE_LIMIT`` such as ``5/second,100/hour``.

Each (route group, client) keeps, per window, the times of its most recent requests, at most as
many as the window allows: a request is refused when that many already fall inside the window,
and ``Retry-After`` is when the oldest of them leaves it, to the second, rounded up. That is an
exact sliding window (not two fixed buckets blended), in O(1) time per request and memory
bounded by the limits. Idle clients are forgotten once their newest request left every window.

Pure: the clock is injected (``time.monotonic`` by default). ``check`` and ``peek`` are
coroutines because that is the ``Limiter`` port's shape: a cluster of replicas counts in Redis
instead (``arena_api.cluster.limits``), with the same windows and the same answers.
"""

from __future__ import annotations

import math
import re
import time
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Protocol

__all__ = ["Limit", "Limiter", "RateLimiter", "Refusal", "parse_limits", "refusal_message"]

_UNITS = {"s": 1.0, "second": 1.0, "m": 60.0, "minute": 60.0, "h": 3600.0, "hour": 3600.0}
_UNITS |= {"d": 86400.0, "day": 86400.0}
_LIMIT = re.compile(r"^\s*(\d+)\s*/\s*([a-z]+)\s*$")
#: Forget idle clients at most this often (a sweep is O(clients)).
SWEEP_EVERY_S = 60.0


@dataclass(frozen=True)
class Limit:
    count: int
    window_s: float

    def __str__(self) -> str:
        unit = next((n for n, s in _UNITS.items() if s == self.window_s and len(n) > 1), None)
        return f"{self.count}/{unit}" if unit else f"{self.count}/{self.window_s:g}s"


@dataclass(frozen=True)
class Refusal:
    limit: Limit
    retry_after_s: int


def refusal_message(retry_after_s: int) -> str:
    """What a refused client is told (the HTTP routes and the UI alike)."""
    return f"Too many requests; try again in {retry_after_s} s"


def parse_limits(raw: str) -> tuple[Limit, ...]:
    """``"30/minute"`` or ``"5/second,100/hour"``; empty: no limit.

    Raises:
        ValueError: a part is not ``N/unit`` with N >= 1 and a known unit.
    """
    limits = []
    for part in filter(str.strip, raw.lower().split(",")):
        match = _LIMIT.match(part)
        if match is None:
            raise ValueError(part)
        count, unit = int(match.group(1)), match.group(2)
        if unit not in _UNITS and len(unit) > 2 and unit.endswith("s"):
            unit = unit[:-1]  # "minutes", "hours"
        if unit not in _UNITS or count < 1:
            raise ValueError(part)
        limits.append(Limit(count, _UNITS[unit]))
    return tuple(sorted(limits, key=lambda limit: limit.window_s))


class Limiter(Protocol):
    """Counts requests per (route group, client) against sliding windows."""

    @property
    def enabled(self) -> bool: ...

    async def check(self, group: str, client: str) -> Refusal | None:
        """Count a request; a ``Refusal`` (and nothing counted) when over a limit."""
        ...

    async def peek(self, group: str, client: str) -> Refusal | None:
        """The ``Refusal`` the next request would get, counting nothing."""
        ...


class RateLimiter:
    """The windows of one process, in memory."""

    def __init__(
        self, limits: tuple[Limit, ...], clock: Callable[[], float] = time.monotonic
    ) -> None:
        self.limits = limits
        self._clock = clock
        self._seen: dict[tuple[str, str], list[deque[float]]] = {}
        self._swept = clock()

    @property
    def enabled(self) -> bool:
        return bool(self.limits)

    async def check(self, group: str, client: str) -> Refusal | None:
        """Count a request of ``client`` to ``group``; a ``Refusal`` when over a limit (then
        the request is not counted)."""
        return self._consider(group, client, count=True)

    async def peek(self, group: str, client: str) -> Refusal | None:
        """The ``Refusal`` the next request of ``client`` to ``group`` would get, counting
        nothing (the login page counts only wrong passphrases, after trying them)."""
        return self._consider(group, client, count=False)

    def _consider(self, group: str, client: str, *, count: bool) -> Refusal | None:
        if not self.limits:
            return None
        now = self._clock()
        if now - self._swept > SWEEP_EVERY_S:
            self._sweep(now)
        key = (group, client)
        windows = self._seen.get(key)
        if windows is None:
            if not count:
                return None
            windows = self._seen[key] = [deque(maxlen=limit.count) for limit in self.limits]
        refusal: Refusal | None = None
        for limit, times in zip(self.limits, windows, strict=True):
            while times and times[0] <= now - limit.window_s:
                times.popleft()
            if len(times) >= limit.count:
                wait = math.ceil(times[0] + limit.window_s - now)
                if refusal is None or wait > refusal.retry_after_s:
                    refusal = Refusal(limit, max(1, wait))
        if refusal is None and count:
            for times in windows:
                times.append(now)
        return refusal

    def _sweep(self, now: float) -> None:
        longest = self.limits[-1].window_s
        self._seen = {
            key: windows
            for key, windows in self._seen.items()
            if any(times and times[-1] > now - longest for times in windows)
        }
        self._swept = now
