"""Is the database reachable, and at which migration: what ``GET /health`` and ``GET /metrics``
report of it.

Every check also tells a ``DatabaseWatcher`` (the ``Alerts`` service) whether the database
answered, so the probes that already run (the orchestrator's health checks, Prometheus' scrapes)
are what notices an outage; ``watching`` adds checks of its own for when nobody asks.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Protocol

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.revisions import current_revision, head_revision

__all__ = ["DatabaseStatus", "DatabaseWatcher", "PostgresProbe"]


@dataclass(frozen=True)
class DatabaseStatus:
    """``reachable``: it answered; ``current``: its revision (``None`` if unreachable);
    ``head``: the code's; ``error``: why it did not answer."""

    reachable: bool
    current: str | None
    head: str
    error: str | None = None


class DatabaseWatcher(Protocol):
    """Told the outcome of every check; it keeps track of what changed (``Alerts``)."""

    def database_unavailable(self, reason: str) -> None: ...

    def database_back(self) -> None: ...


class PostgresProbe:
    """Checks the database behind ``engine``, telling ``watcher`` each outcome."""

    def __init__(self, engine: AsyncEngine, watcher: DatabaseWatcher | None = None) -> None:
        self._engine = engine
        self._watcher = watcher

    async def check(self) -> DatabaseStatus:
        """Whether ``SELECT 1`` answers, and the revision the database is at.

        Raises:
            RuntimeError: the migration history is empty (a broken install, not a database
                fault).
        """
        status = await self._status()
        if self._watcher is not None:
            if status.reachable:
                self._watcher.database_back()
            else:
                self._watcher.database_unavailable(status.error or "no answer")
        return status

    @contextlib.asynccontextmanager
    async def watching(self, period_s: float) -> AsyncIterator[None]:
        """Check every ``period_s`` while the block runs, so that an outage is noticed even
        with nobody asking ``/health``."""
        task = asyncio.create_task(self._watch(period_s), name="database watch")
        try:
            yield
        finally:
            task.cancel()
            await asyncio.gather(task, return_exceptions=True)

    async def _watch(self, period_s: float) -> None:
        while True:
            await asyncio.sleep(period_s)
            await self.check()

    async def _status(self) -> DatabaseStatus:
        head = head_revision()
        try:
            async with self._engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            current = await current_revision(self._engine)
        except Exception as exc:  # any driver or network failure means "not reachable" here
            return DatabaseStatus(reachable=False, current=None, head=head, error=_reason(exc))
        return DatabaseStatus(reachable=True, current=current, head=head)


#: An alert carries the reason; SQLAlchemy's wrapping adds the statement and a link to it.
_REASON_CHARS = 200


def _reason(exc: Exception) -> str:
    """The driver's own error, on one line: ``ConnectionRefusedError: [Errno 111] ...``."""
    cause = getattr(exc, "orig", None) or exc
    lines = str(cause).strip().splitlines()
    reason = f"{type(cause).__name__}: {lines[0]}" if lines else type(cause).__name__
    return reason[:_REASON_CHARS]
