"""Answers are stored in groups: one statement and one commit for every answer that is ready.

Under load many rounds finish their slots within the same few milliseconds. Storing each answer
on its own costs a pool checkout, a round trip, a statement and a commit apiece. Here the first
answer to arrive starts a writer task; what is ready when it runs, and every answer that arrives
while a write is in flight, goes into one ``INSERT ... SELECT FROM unnest(...)``. With one round
in flight this is the single insert it always was; at 64 it is a few answers per commit.

One writer at a time also means the analytics triggers on ``responses`` take their row locks in
one order, so groups cannot deadlock each other. A group that fails (a row that breaks a check, a
connection that drops) is retried answer by answer, so one bad answer never loses the others; each
caller gets its own answer's outcome.
"""

from __future__ import annotations

import asyncio
import uuid
from dataclasses import dataclass

import asyncpg

from arena_api.core.events import SlotResult
from arena_api.core.ids import new_id
from arena_api.core.models import Slot

__all__ = ["AnswerWriter"]

_COLUMNS = (
    ("id", "uuid"),
    ("matchup_id", "uuid"),
    ("slot", "text"),
    ("model_id", "uuid"),
    ("content", "text"),
    ("latency_ms", "int4"),
    ("ttft_ms", "int4"),
    ("stream_duration_ms", "int4"),
    ("output_token_count", "int4"),
    ("token_count_source", "text"),
    ("markdown_density", "float8"),
    ("model_version", "text"),
    ("error", "text"),
    ("input_token_count", "int4"),
    ("input_token_source", "text"),
    ("cost_usd", "numeric"),
    ("names_itself", "bool"),
)

# A replayed ``slot_done`` is ignored: the unique (matchup_id, slot) keeps the first answer.
_INSERT = (
    f"INSERT INTO responses ({', '.join(name for name, _ in _COLUMNS)}) "
    "SELECT * FROM unnest("
    + ", ".join(f"${n}::{kind}[]" for n, (_, kind) in enumerate(_COLUMNS, 1))
    + ") ON CONFLICT (matchup_id, slot) DO NOTHING"
)

_Row = tuple[object, ...]


@dataclass(slots=True)
class _Pending:
    row: _Row
    done: asyncio.Future[None]


class AnswerWriter:
    """Stores answers through ``pool``, grouping those that are ready at the same time."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool
        self._waiting: list[_Pending] = []
        self._writer: asyncio.Task[None] | None = None

    async def save(
        self, matchup_id: uuid.UUID, slot: Slot, model_id: uuid.UUID, result: SlotResult
    ) -> None:
        """Return once this answer is committed; raise what storing it raised."""
        row = (
            new_id(),
            matchup_id,
            slot,
            model_id,
            result.content,
            result.latency_ms,
            result.ttft_ms,
            result.stream_duration_ms,
            result.output_token_count,
            result.token_count_source,
            result.markdown_density,
            result.model_version,
            result.error,
            result.input_token_count,
            result.input_token_source,
            result.cost_usd,
            result.names_itself,
        )
        pending = _Pending(row, asyncio.get_running_loop().create_future())
        self._waiting.append(pending)
        if self._writer is None:
            self._writer = asyncio.create_task(self._drain())
        # A caller that is cancelled stops waiting; its answer is still written.
        await pending.done

    async def _drain(self) -> None:
        group: list[_Pending] = []
        try:
            while self._waiting:
                group, self._waiting = self._waiting, []
                await self._write(group)
        except BaseException as exc:  # cancelled at shutdown: nobody may wait forever
            for pending in (*group, *self._waiting):
                _settle(pending, exc)
            self._waiting = []
            raise
        finally:
            self._writer = None

    async def _write(self, group: list[_Pending]) -> None:
        try:
            await self._insert([p.row for p in group])
        except Exception as exc:
            if len(group) == 1:
                _settle(group[0], exc)
                return
            for pending in group:
                try:
                    await self._insert([pending.row])
                except Exception as single:
                    _settle(pending, single)
                else:
                    _settle(pending, None)
        else:
            for pending in group:
                _settle(pending, None)

    async def _insert(self, rows: list[_Row]) -> None:
        async with self._pool.acquire() as conn:
            await conn.execute(_INSERT, *(list(column) for column in zip(*rows, strict=True)))


def _settle(pending: _Pending, error: BaseException | None) -> None:
    if pending.done.done():
        return
    if error is None:
        pending.done.set_result(None)
    elif isinstance(error, asyncio.CancelledError):
        pending.done.cancel()
    else:
        pending.done.set_exception(error)
