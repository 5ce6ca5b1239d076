"""When the loop refits: soon after new votes, never while nothing changed.

The loop asks the database for the votes' *fingerprint* about once a second: the newest vote's
id (ids are time-ordered UUIDv7s, so this is one step down the primary key's index) and the
sum of the per-model vote counters the vote triggers keep (a handful of rows, one per model; a
deleted vote lowers it). Neither is a scan, however many votes there are. A changed fingerprint
starts a refit once ``RATING_MIN_INTERVAL_S`` has passed since the last one; a burst of votes so
costs one refit per interval, and an idle arena none at all.

What is slow or piles up keeps a longer cadence: the *periodic* refit, at most every
``RATING_REFIT_INTERVAL_S``, also runs the style-controlled pass (with ``--style``) and appends
a point to the rating history (which would otherwise gain a row per model every few seconds of
voting). When votes came in since the last periodic refit, the refit that falls due once its
interval has passed is periodic, even if no vote arrived since the last refit. A refit that fails
is tried again when the votes change.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

from sqlalchemy import func, select, text
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.db.tables import SCHEMA_LOCK_KEY

__all__ = ["Fingerprint", "Refit", "RefitTrigger", "read_fingerprint"]

#: The newest vote's id (as text, or None) and the sum of the vote counters.
Fingerprint = tuple[str | None, int]

_FINGERPRINT = text(
    "SELECT (SELECT id::text FROM preferences ORDER BY id DESC LIMIT 1),"
    " (SELECT coalesce(sum(wins + losses + ties + skips), 0) FROM model_vote_stats)"
)


async def read_fingerprint(conn: AsyncConnection) -> Fingerprint:
    """The fingerprint, once no migration is in progress: its statement reads two tables, and
    holding one while a migration alters the other and waits for the first would deadlock. The
    schema's lock is shared until ``conn``'s transaction ends."""
    await conn.execute(select(func.pg_advisory_xact_lock_shared(SCHEMA_LOCK_KEY)))
    newest, counted = (await conn.execute(_FINGERPRINT)).one()
    return newest, int(counted)


@dataclass(frozen=True)
class Refit:
    """A refit that is due; ``periodic``: with the style pass and a history point."""

    periodic: bool


class RefitTrigger:
    """Decides, from the fingerprint and the clock, whether a refit is due.

    Parameters
    ----------
    min_interval_s : float
        Shortest time between two refits.
    periodic_interval_s : float
        Shortest time between two periodic refits.
    """

    def __init__(self, min_interval_s: float, periodic_interval_s: float) -> None:
        self.min_interval_s = min_interval_s
        self.periodic_interval_s = periodic_interval_s
        self._rated: Fingerprint | None = None  # what the last refit saw
        self._recorded: Fingerprint | None = None  # what the last periodic refit saw
        self._rated_at = -math.inf
        self._recorded_at = -math.inf

    def due(self, fingerprint: Fingerprint, now: float) -> Refit | None:
        """The refit to run now, or None. The first call always refits."""
        first = self._rated_at == -math.inf
        periodic = (first or fingerprint != self._recorded) and (
            now - self._recorded_at >= self.periodic_interval_s
        )
        changed = first or fingerprint != self._rated
        if periodic or (changed and now - self._rated_at >= self.min_interval_s):
            return Refit(periodic=periodic)
        return None

    def ran(self, refit: Refit, fingerprint: Fingerprint, now: float) -> None:
        """``refit`` ran at ``now`` on the votes of ``fingerprint`` (read before it started).

        Also when it failed: the same votes would fail it again."""
        self._rated, self._rated_at = fingerprint, now
        if refit.periodic:
            self._recorded, self._recorded_at = fingerprint, now
