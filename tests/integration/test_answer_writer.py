"""Answers are stored in groups; each caller still gets its own answer's outcome."""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.events import SlotResult
from arena_api.core.models import ModelEntry
from arena_api.core.records import NewRound
from arena_api.db.answers import AnswerWriter
from arena_api.db.repository import PostgresRepository, create_pool, seed_roster
from arena_api.roster import load_roster
from tests.support import ROOT


class CountingPool:
    """The real pool, counting checkouts: one per statement the writer sends."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self.pool = pool
        self.checkouts = 0

    def acquire(self) -> Any:
        self.checkouts += 1
        return self.pool.acquire()


def _answer(content: str = "an answer") -> SlotResult:
    return SlotResult(
        content=content,
        latency_ms=120,
        ttft_ms=10,
        stream_duration_ms=110,
        output_token_count=3,
        token_count_source="estimated",
        markdown_density=0.0,
    )


@asynccontextmanager
async def _rounds(
    db: AsyncEngine, database_url: str, count: int
) -> AsyncIterator[tuple[CountingPool, list[uuid.UUID], ModelEntry, ModelEntry]]:
    pool = await create_pool(database_url)
    try:
        repository = PostgresRepository(db, pool)
        await seed_roster(db, load_roster(ROOT / "models.yaml"))
        a, b = (await repository.enabled_models())[:2]
        ids = [uuid.uuid4() for _ in range(count)]
        for matchup_id in ids:
            await repository.create_round(
                NewRound(
                    matchup_id=matchup_id,
                    conversation_id=uuid.uuid4(),
                    new_conversation=True,
                    session_id=None,
                    turn_index=0,
                    parent_response_id=None,
                    prompt="p",
                    slot_a=a,
                    slot_b=b,
                    token_hash=f"h{matchup_id}",
                    harness_version="v1",
                    mode="blind",
                )
            )
        yield CountingPool(pool), ids, a, b
    finally:
        await pool.close()


async def _stored(db: AsyncEngine) -> int:
    async with db.connect() as conn:
        return int((await conn.execute(text("SELECT count(*) FROM responses"))).scalar_one())


async def test_answers_ready_together_go_in_one_statement(
    db: AsyncEngine, database_url: str
) -> None:
    async with _rounds(db, database_url, 20) as (pool, ids, a, b):
        writer = AnswerWriter(pool)

        await asyncio.gather(
            *(writer.save(m, "A", a.id, _answer()) for m in ids),
            *(writer.save(m, "B", b.id, _answer()) for m in ids),
        )

        assert await _stored(db) == 40
        # All 40 were ready before the writer ran: one statement, one commit.
        assert pool.checkouts == 1
        async with db.connect() as conn:
            counted = (
                await conn.execute(
                    text("SELECT sum(responses) FROM model_response_stats WHERE model_id = :m"),
                    {"m": a.id},
                )
            ).scalar_one()
        assert counted == 20  # the analytics triggers saw every row


async def test_one_bad_answer_fails_alone_and_loses_no_other(
    db: AsyncEngine, database_url: str
) -> None:
    async with _rounds(db, database_url, 3) as (pool, ids, a, _):
        writer = AnswerWriter(pool)
        unknown_matchup = uuid.uuid4()

        results = await asyncio.gather(
            writer.save(ids[0], "A", a.id, _answer()),
            writer.save(ids[1], "A", a.id, _answer()),
            writer.save(unknown_matchup, "A", a.id, _answer()),
            writer.save(ids[2], "A", a.id, _answer("NUL \x00 byte")),
            return_exceptions=True,
        )

        assert list(results[:2]) == [None, None]
        assert isinstance(results[2], asyncpg.ForeignKeyViolationError)
        assert isinstance(results[3], asyncpg.PostgresError | asyncpg.exceptions.DataError)
        assert await _stored(db) == 2


async def test_a_replayed_answer_keeps_the_first(db: AsyncEngine, database_url: str) -> None:
    async with _rounds(db, database_url, 1) as (pool, ids, a, _):
        writer = AnswerWriter(pool)

        await asyncio.gather(
            writer.save(ids[0], "A", a.id, _answer("first")),
            writer.save(ids[0], "A", a.id, _answer("second")),
        )

        async with db.connect() as conn:
            content = (await conn.execute(text("SELECT content FROM responses"))).scalar_one()
        assert content == "first"


async def test_a_caller_that_stops_waiting_still_has_its_answer_stored(
    db: AsyncEngine, database_url: str
) -> None:
    async with _rounds(db, database_url, 2) as (pool, ids, a, _):
        writer = AnswerWriter(pool)
        first = asyncio.create_task(writer.save(ids[0], "A", a.id, _answer()))
        second = asyncio.create_task(writer.save(ids[1], "A", a.id, _answer()))
        await asyncio.sleep(0)
        second.cancel()

        await first
        with pytest.raises(asyncio.CancelledError):
            await second
        for _ in range(50):
            if await _stored(db) == 2:
                break
            await asyncio.sleep(0.02)
        assert await _stored(db) == 2
