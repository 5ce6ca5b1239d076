"""Is the database reachable, and at which migration: what ``GET /health`` reports of it."""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.migrations import current_revision, head_revision

__all__ = ["DatabaseStatus", "PostgresProbe"]


@dataclass(frozen=True)
class DatabaseStatus:
    """``reachable``: it answered; ``current``: its revision (``None`` if unreachable);
    ``head``: the code's."""

    reachable: bool
    current: str | None
    head: str


class PostgresProbe:
    """Checks the database behind ``engine``."""

    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def check(self) -> DatabaseStatus:
        """Whether ``SELECT 1`` answers, and the revision the database is at.

        Raises:
            RuntimeError: the migration history is empty (a broken install, not a database
                fault).
        """
        head = head_revision()
        try:
            async with self._engine.connect() as conn:
                await conn.execute(text("SELECT 1"))
            current = await current_revision(self._engine)
        except Exception:  # any driver or network failure means "not reachable" here
            return DatabaseStatus(reachable=False, current=None, head=head)
        return DatabaseStatus(reachable=True, current=current, head=head)
