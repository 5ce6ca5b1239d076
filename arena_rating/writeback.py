"""Writing a pass's results, one transaction per pass, under an advisory lock.

``write_ratings`` upserts ``model_ratings`` (one row per rated model, keyed by model) and
appends the same rows to ``model_rating_history`` in the same transaction, all stamped with the
transaction's ``now()``: the two tables can never disagree about a refit, and running a pass
twice leaves ``model_ratings`` with the same rows (idempotent) and the history with one more
snapshot per model. Rows of models that are no longer part of the fit are deleted, so the table
always holds exactly the latest fit. ``write_style`` does the same for ``model_style_ratings``
and ``style_control_coefficients`` (which have no history).

Each pass also writes the other populations' boards (``write_population``; the boards of
slices that fell below their threshold are cleared) and the votes its filters left out, with
their reasons (``write_exclusions``).

``rating_lock`` takes a session-level PostgreSQL advisory lock for the whole pass, so a second
rating process (another replica, or ``arena rate`` beside the embedded worker) either waits or
skips its pass; two processes never interleave their writes. It also shares the schema's lock
(``SCHEMA_LOCK_KEY``) for the pass: a pass waits for a migration in progress (a rating service
that starts beside a replica that is still migrating), and a migration for a pass.
"""

from __future__ import annotations

import asyncio
import hashlib
import time
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from contextlib import asynccontextmanager
from datetime import datetime

import numpy as np
from sqlalchemy import Table, delete, func, select, text
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.core.populations import CATEGORY_BOARD, HISTORY_POPULATIONS, is_category_board
from arena_api.db.tables import (
    SCHEMA_LOCK_KEY,
    model_population_ratings,
    model_rating_history,
    model_ratings,
    model_style_ratings,
    rating_passes,
    style_control_coefficients,
)
from arena_rating._errors import RatingInputError
from arena_rating.aggregate import VoteFilters
from arena_rating.report import RatingRows

__all__ = [
    "RATING_LOCK_KEY",
    "rating_lock",
    "write_ratings",
    "write_style",
]

#: The advisory-lock key every rating process agrees on ("arenarat" in ASCII, a signed bigint).
RATING_LOCK_KEY = int.from_bytes(b"arenarat", "big")
#: How often a waiting process asks for the lock again.
LOCK_POLL_S = 0.25


@asynccontextmanager
async def rating_lock(conn: AsyncConnection, *, wait_s: float = 0.0) -> AsyncIterator[bool]:
    """Hold the rating advisory lock on ``conn`` for the body; yields whether it was acquired.
    Once it is, the schema's lock is shared too, which waits for a migration in progress.

    Parameters
    ----------
    conn : AsyncConnection
        The connection the pass runs on (the lock belongs to its session and survives commits).
    wait_s : float
        How long to keep asking when another process holds the lock; 0 gives up at once.
    """
    deadline = time.monotonic() + wait_s
    acquire = select(func.pg_try_advisory_lock(RATING_LOCK_KEY))
    while True:
        acquired = bool((await conn.execute(acquire)).scalar_one())
        await conn.commit()
        if acquired or time.monotonic() >= deadline:
            break
        await asyncio.sleep(LOCK_POLL_S)
    if not acquired:
        yield False
        return
    shared = False
    try:
        await conn.execute(select(func.pg_advisory_lock_shared(SCHEMA_LOCK_KEY)))
        await conn.commit()
        shared = True
        yield True
    finally:
        await conn.rollback()  # a failed pass may have left its transaction open
        if shared:
            await conn.execute(select(func.pg_advisory_unlock_shared(SCHEMA_LOCK_KEY)))
        await conn.execute(select(func.pg_advisory_unlock(RATING_LOCK_KEY)))
        await conn.commit()


async def _now(conn: AsyncConnection) -> datetime:
    value: datetime = (await conn.execute(select(func.now()))).scalar_one()
    return value


# Row field -> column, per rating table (the tables name the same values differently).
_RATING_COLUMNS = {
    "rating": "rating",
    "stderr": "rating_stderr",
    "ci_lower": "ci_lower",
    "ci_upper": "ci_upper",
}
_STYLE_COLUMNS = {
    "rating": "style_controlled_rating",
    "stderr": "style_controlled_stderr",
    "ci_lower": "style_ci_lower",
    "ci_upper": "style_ci_upper",
}


def _records(
    rows: RatingRows, columns: Mapping[str, str], computed_at: datetime, **extra: object
) -> list[dict[str, object]]:
    """``rows`` as rows of a rating table whose value columns ``columns`` names."""
    return [
        {
            **extra,
            "model_id": r["model_id"],
            **{column: r[field] for field, column in columns.items()},
            "component_id": r["component_id"],
            "games": r["games"],
            "computed_at": computed_at,
        }
        for r in rows.records()
    ]


async def _replace_rated(
    conn: AsyncConnection,
    table: Table,
    columns: Mapping[str, str],
    rows: RatingRows,
    computed_at: datetime,
) -> list[dict[str, object]]:
    """Make ``table`` hold exactly ``rows`` (upsert by model, delete the others); returns the
    records written."""
    records = _records(rows, columns, computed_at)
    await conn.execute(delete(table).where(table.c.model_id.not_in(rows.model_ids)))
    if records:
        # Executed with the records as parameters (one statement SQLAlchemy compiles once and
        # caches), not with the values rendered into a statement compiled anew each pass.
        upsert = insert(table)
        updated = [name for name in records[0] if name != "model_id"]
        await conn.execute(
            upsert.on_conflict_do_update(
                index_elements=[table.c.model_id],
                set_={name: upsert.excluded[name] for name in updated},
            ),
            records,
        )
    return records


async def write_ratings(
    conn: AsyncConnection, rows: RatingRows, *, history: bool = True
) -> datetime:
    """Upsert ``model_ratings`` and, with ``history``, append ``model_rating_history``, in one
    transaction.

    Returns
    -------
    datetime
        The transaction's ``now()``, shared by every row written.
    """
    async with conn.begin():
        computed_at = await _now(conn)
        records = await _replace_rated(conn, model_ratings, _RATING_COLUMNS, rows, computed_at)
        if records and history:
            await conn.execute(insert(model_rating_history), records)
    return computed_at


#: How many passes ``rating_passes`` keeps (a day of ten-second refits is 8,640).
PASSES_KEPT = 1000


async def record_pass(
    conn: AsyncConnection,
    *,
    status: str,
    seconds: float,
    votes: int,
    votes_excluded: int,
    sessions_excluded: int,
    models: int,
    periodic: bool,
    votes_identity_leaks: int = 0,
    votes_duplicates: int = 0,
) -> None:
    """Append what a pass did to ``rating_passes`` and drop all but the latest ``PASSES_KEPT``."""
    async with conn.begin():
        inserted = await conn.execute(
            insert(rating_passes)
            .values(
                status=status,
                seconds=seconds,
                votes=votes,
                votes_excluded=votes_excluded,
                sessions_excluded=sessions_excluded,
                votes_identity_leaks=votes_identity_leaks,
                votes_duplicates=votes_duplicates,
                models=models,
                periodic=periodic,
            )
            .returning(rating_passes.c.id)
        )
        newest = inserted.scalar_one()
        await conn.execute(delete(rating_passes).where(rating_passes.c.id <= newest - PASSES_KEPT))


async def write_population(
    conn: AsyncConnection, population: str, rows: RatingRows | None, *, history: bool = False
) -> None:
    """Make ``model_population_ratings`` hold exactly ``rows`` for ``population`` (none: clear
    it) and, with ``history`` for a population that keeps one, append ``rows`` to
    ``model_rating_history``, in one transaction."""
    table = model_population_ratings
    async with conn.begin():
        computed_at = await _now(conn)
        await conn.execute(delete(table).where(table.c.population == population))
        if rows is not None and rows.model_ids:
            records = _records(rows, _RATING_COLUMNS, computed_at, population=population)
            await conn.execute(insert(table), records)
            if history and (population in HISTORY_POPULATIONS or is_category_board(population)):
                await conn.execute(insert(model_rating_history), records)


async def clear_category_boards(conn: AsyncConnection, *, keep: Sequence[str]) -> None:
    """Remove the boards of the slices that no longer have enough votes (their history stays)."""
    table = model_population_ratings
    async with conn.begin():
        await conn.execute(
            delete(table).where(
                table.c.population.startswith(CATEGORY_BOARD, autoescape=True),
                table.c.population.not_in(list(keep)),
            )
        )


_EXCLUSIONS_DIGEST = text(
    "SELECT md5(coalesce(string_agg(preference_id::text || ' ' || reason, ',' "
    "ORDER BY preference_id), '')) FROM vote_exclusions"
)


def _digest(wanted: Mapping[uuid.UUID, tuple[str, str]]) -> str:
    """``_EXCLUSIONS_DIGEST`` of a table holding exactly ``wanted`` (PostgreSQL orders uuids
    as Python does: by their bytes)."""
    listed = ",".join(f"{vote} {wanted[vote][0]}" for vote in sorted(wanted))
    return hashlib.md5(listed.encode(), usedforsecurity=False).hexdigest()


async def write_exclusions(conn: AsyncConnection, filters: VoteFilters) -> None:
    """Make ``vote_exclusions`` hold exactly the votes this pass's filters left out, with their
    reasons; rows that stay are kept (with the time they were first left out).

    Only the difference is written: the rows whose vote or reason is no longer left out are
    deleted, and the newly left-out votes (still stored) inserted; a pass whose filters left
    out the same votes as the last one writes nothing.
    """
    wanted: dict[uuid.UUID, tuple[str, str]] = {
        **{vote: ("identity_leak", slots) for vote, slots in filters.identity.items()},
        **{vote: ("duplicate_prompt", key) for vote, key in filters.duplicates.items()},
    }
    async with conn.begin():
        # A digest of what is stored settles the common case (nothing changed) without
        # reading every row back.
        stored_digest = (await conn.execute(_EXCLUSIONS_DIGEST)).scalar_one()
        if stored_digest == _digest(wanted):
            return
        stored = await conn.execute(text("SELECT preference_id, reason FROM vote_exclusions"))
        kept: set[object] = set()
        stale = []
        for vote, reason in stored.all():
            if vote in wanted and wanted[vote][0] == reason:
                kept.add(vote)
            else:
                stale.append(vote)
        if stale:
            await conn.execute(
                text("DELETE FROM vote_exclusions WHERE preference_id = ANY(CAST(:ids AS uuid[]))"),
                {"ids": stale},
            )
        new = [vote for vote in wanted if vote not in kept]
        if new:
            await conn.execute(
                text(
                    "INSERT INTO vote_exclusions (preference_id, reason, detail) "
                    "SELECT x.id, x.reason, x.detail FROM "
                    "unnest(CAST(:ids AS uuid[]), CAST(:reasons AS text[]), "
                    "CAST(:details AS text[])) AS x (id, reason, detail) "
                    "JOIN preferences v ON v.id = x.id "
                    "ON CONFLICT (preference_id) DO NOTHING"
                ),
                {
                    "ids": new,
                    "reasons": [wanted[vote][0] for vote in new],
                    "details": [wanted[vote][1] for vote in new],
                },
            )


async def write_style(
    conn: AsyncConnection,
    rows: RatingRows,
    coefficients: Mapping[str, float],
    *,
    features: Sequence[str],
) -> datetime:
    """Upsert ``model_style_ratings`` and ``style_control_coefficients`` in one transaction.

    Raises
    ------
    RatingInputError
        ``coefficients`` does not hold exactly ``features``, or a coefficient is not finite.
    """
    if set(coefficients) != set(features) or not all(np.isfinite(v) for v in coefficients.values()):
        raise RatingInputError(f"coefficients must be finite values for exactly {features}")
    async with conn.begin():
        computed_at = await _now(conn)
        await _replace_rated(conn, model_style_ratings, _STYLE_COLUMNS, rows, computed_at)
        await conn.execute(
            delete(style_control_coefficients).where(
                style_control_coefficients.c.feature.not_in(list(features))
            )
        )
        upsert_coefficients = insert(style_control_coefficients).values(
            [
                {
                    "feature": name,
                    "coefficient": float(coefficients[name]),
                    "computed_at": computed_at,
                }
                for name in features
            ]
        )
        await conn.execute(
            upsert_coefficients.on_conflict_do_update(
                index_elements=[style_control_coefficients.c.feature],
                set_={
                    "coefficient": upsert_coefficients.excluded.coefficient,
                    "computed_at": upsert_coefficients.excluded.computed_at,
                },
            )
        )
    return computed_at
