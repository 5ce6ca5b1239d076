"""A value read again at most every so often, with one read at a time.

Every round asks for the playable roster and the matchmaker's snapshot, which are cached for a
couple of seconds. A plain "read when stale" cache lets every request that arrives while the
read is under way start a read of its own: at a few hundred rounds a second each expiry became
a burst of identical queries, each taking a pooled connection (opening overflow connections
that were closed again at once). ``Refreshed`` starts one read and lets every caller that comes
while it runs wait for that same read.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar

__all__ = ["Refreshed"]

T = TypeVar("T")


class Refreshed(Generic[T]):
    """``read()``'s value, kept for ``ttl_s`` seconds of ``clock``.

    A read that fails is not kept: its error reaches every caller waiting on it, and the next
    call reads again. A read that started before ``invalidate()`` is not kept either, so an
    edit is seen by every call that starts after it.
    """

    def __init__(
        self, read: Callable[[], Awaitable[T]], ttl_s: float, clock: Callable[[], float]
    ) -> None:
        self._read = read
        self._ttl_s = ttl_s
        self._clock = clock
        self._value: tuple[float, T] | None = None
        self._reading: asyncio.Future[T] | None = None
        self._generation = 0

    async def get(self, *, refresh: bool = False) -> T:
        """The kept value while it is fresh, else the value of a read (one at a time).

        Args:
            refresh: ignore the kept value (a read already under way is still shared).
        """
        if not refresh and self._value is not None:
            read_at, value = self._value
            if self._clock() - read_at <= self._ttl_s:
                return value
        if self._reading is None:
            self._reading = asyncio.ensure_future(self._read_once(self._generation))
            # Every caller may have given up before a read fails: its error is theirs, not
            # an "exception was never retrieved" in the log.
            self._reading.add_done_callback(_retrieve)
        # Shielded: one caller that gives up (its request was cancelled) does not cancel the
        # read the others wait for.
        return await asyncio.shield(self._reading)

    def invalidate(self) -> None:
        """Forget the kept value; a read under way is left to finish for its own callers."""
        self._value = None
        self._reading = None
        self._generation += 1

    async def _read_once(self, generation: int) -> T:
        read_at = self._clock()
        try:
            value = await self._read()
        finally:
            if generation == self._generation:
                self._reading = None
        if generation == self._generation:
            self._value = (read_at, value)
        return value


def _retrieve(read: asyncio.Future[Any]) -> None:
    if not read.cancelled():
        read.exception()
