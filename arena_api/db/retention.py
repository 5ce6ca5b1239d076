"""Text retention (``ARENA_TEXT_RETENTION_DAYS``): clear prompts and answers older than N days.

``clear_old_text`` is the one implementation; ``arena db prune-text`` runs it once, and a
serving process with the setting above 0 runs it at start and then hourly (``keep_text_for``,
started by ``arena_api.bootstrap``). Each table's text is cleared by the age of its own rows
(``created_at``), in batches that each commit on their own, so readers and writers wait on no
long transaction and an interrupted run resumes where it stopped. Votes, rounds, ratings and
summaries stay, and so does a round's prompt key (a hash), which the duplicate-prompt cap
counts over the whole history. A turn's images go in the batch that clears its prompt, and an
image no turn shows any more is deleted with them. What is cleared, and why summaries stay
exact: ``arena_api.db._text``.

Replicas of a cluster all run the task; an advisory lock lets one clear at a time (a run that
finds a batch of another's under way leaves the work to it).
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from datetime import datetime, timedelta

import asyncpg

from arena_api.db._text import TEXTS, ClearedText, TextColumns
from arena_api.db.media import DetachedImages, detach_images

__all__ = ["PERIOD_S", "ClearedText", "clear_old_text", "keep_text_for"]

_log = logging.getLogger(__name__)

#: How often a serving process clears text that has come of age.
PERIOD_S = 3600.0
#: Rows per batch: each is one short transaction.
BATCH = 10_000
_LOCK = 1095913028  # beside the migrations' advisory lock (arena_api.db.migrations)
_FIRST = uuid.UUID(int=0)

# Keyset batches in primary-key order: every batch walks on from where the last one stopped, so
# one run reads each table once however many batches it takes.
_BATCH = """
WITH batch AS (
  SELECT id FROM {table}
   WHERE id > $1 AND created_at < $2 AND {has_text}
   ORDER BY id LIMIT $3
)
UPDATE {table} AS t SET {blank} FROM batch WHERE t.id = batch.id RETURNING t.id
"""


async def clear_old_text(
    conn: asyncpg.Connection, older_than: timedelta, *, batch: int = BATCH
) -> ClearedText | None:
    """Clear the prompts, answers and judges' readings stored more than ``older_than`` ago.

    Args:
        conn: a connection to a migrated database, outside a transaction (each batch commits).
        older_than: the age past which text goes.
        batch: rows per transaction.

    Returns:
        How many rows had text cleared, or ``None`` when another process is clearing now.
    """
    cutoff: datetime = await conn.fetchval("SELECT now() - $1::interval", older_than)
    cleared = {}
    images = DetachedImages()
    for texts in TEXTS:
        done = await _clear(conn, texts, cutoff, batch)
        if done is None:
            return None
        cleared[texts.table], detached = done
        images += detached
    return ClearedText.of(cleared, images)


async def _clear(
    conn: asyncpg.Connection, texts: TextColumns, cutoff: datetime, batch: int
) -> tuple[int, DetachedImages] | None:
    """Clear ``texts`` in rows older than ``cutoff``, batch by batch, and the images of those
    rows with each batch; ``None`` if another process holds the lock. The lock is a
    transaction's, as the pool's connections hold none past their transaction
    (``arena_api.db.repository``)."""
    statement = _BATCH.format(table=texts.table, has_text=texts.has_text, blank=texts.blank)
    cleared, last, images = 0, _FIRST, DetachedImages()
    while True:
        async with conn.transaction():
            if not await conn.fetchval("SELECT pg_try_advisory_xact_lock($1)", _LOCK):
                return None
            ids = [r[0] for r in await conn.fetch(statement, last, cutoff, batch)]
            if texts.has_images:
                images += await detach_images(conn, ids)
        if not ids:
            return cleared, images
        cleared += len(ids)
        last = max(ids)


async def keep_text_for(pool: asyncpg.Pool, days: int, *, period_s: float = PERIOD_S) -> None:
    """Clear text older than ``days`` days now and every ``period_s`` until cancelled.

    A database that fails is logged and tried again at the next period; it never ends the task.
    """
    while True:
        try:
            async with pool.acquire() as conn:
                cleared = await clear_old_text(conn, timedelta(days=days))
        except (OSError, asyncpg.PostgresError, asyncpg.InterfaceError) as exc:
            _log.warning("text retention: the database failed (%s); trying again later", exc)
        else:
            if cleared is not None and cleared.total:
                _log.info(
                    "text retention: cleared text older than %d days: %s", days, cleared.describe()
                )
        await asyncio.sleep(period_s)
