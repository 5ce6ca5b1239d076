"""The read model's manifest matches the database, and its triggers keep every summary equal to
a recount from scratch, whatever sequence of rounds, answers, votes and reclassifications."""

from __future__ import annotations

import asyncio
import re
import uuid
from collections.abc import Callable, Coroutine, Iterator
from dataclasses import dataclass
from datetime import UTC, datetime, timedelta
from decimal import Decimal
from typing import Any, TypeVar

import asyncpg
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from arena_api.core.sides import SLOT_PICKED, VOTES
from arena_api.db.read_model import (
    FUNCTIONS,
    RECOUNTS,
    SUMMARIES,
    TRIGGERS,
    Trigger,
    rebuild,
)
from arena_api.db.sql import sql
from tests.fixtures import prepare_database
from tests.unit.db.summaries import Snapshot, assert_same, snapshot

T = TypeVar("T")

_T0 = datetime(2026, 11, 30, 22, 0, tzinfo=UTC)
_SLICES = (None, [], ["coding"], ["math", "coding"], ["multi_turn"])
_LANGUAGES = (None, "und", "en", "de")


@dataclass
class _Database:
    """A migrated database of this module's own, three models in it, driven from sync tests."""

    loop: asyncio.AbstractEventLoop
    conn: asyncpg.Connection
    models: tuple[uuid.UUID, ...]

    def run(self, work: Coroutine[Any, Any, T]) -> T:
        return self.loop.run_until_complete(work)


@pytest.fixture(scope="module")
def database(fresh_database: Callable[[], str]) -> Iterator[_Database]:
    url = prepare_database(fresh_database())
    loop = asyncio.new_event_loop()
    conn = loop.run_until_complete(asyncpg.connect("postgresql://" + url.partition("://")[2]))
    models = tuple(uuid.uuid4() for _ in range(3))
    loop.run_until_complete(
        conn.executemany(
            "INSERT INTO models (id, display_name, provider, provider_model_id) "
            "VALUES ($1, $2, 'mock', $2)",
            [(m, f"model-{i}") for i, m in enumerate(models)],
        )
    )
    yield _Database(loop, conn, models)
    loop.run_until_complete(conn.close())
    loop.close()


# -- the manifest against the database --------------------------------------------------------


def test_every_summary_trigger_and_function_of_the_manifest_is_in_the_database(
    database: _Database,
) -> None:
    tables = database.run(
        database.conn.fetch("SELECT tablename FROM pg_tables WHERE schemaname = 'public'")
    )
    triggers = database.run(
        database.conn.fetch(
            "SELECT tgname, tgrelid::regclass::text AS tbl, tgfoid::regproc::text AS fn "
            "FROM pg_trigger WHERE NOT tgisinternal"
        )
    )
    functions = database.run(
        database.conn.fetch(
            "SELECT proname, pg_get_function_identity_arguments(p.oid) AS args FROM pg_proc p "
            "JOIN pg_namespace n ON n.oid = p.pronamespace WHERE nspname = 'public'"
        )
    )

    assert {s.table for s in SUMMARIES} <= {r["tablename"] for r in tables}
    assert {(t.name, t.table, t.function) for t in TRIGGERS} == {
        (r["tgname"], r["tbl"], r["fn"]) for r in triggers
    }
    assert {(f.name, f.arguments) for f in FUNCTIONS} == {
        (r["proname"], r["args"]) for r in functions
    }


def test_every_table_a_trigger_or_recount_writes_is_a_summary_of_the_manifest(
    database: _Database,
) -> None:
    """No summary in the database is missing from the manifest: every table a read-model
    function writes is listed, and each recount empties exactly the summaries it names."""
    bodies = {
        r["proname"]: r["prosrc"]
        for r in database.run(
            database.conn.fetch(
                "SELECT proname, prosrc FROM pg_proc p JOIN pg_namespace n "
                "ON n.oid = p.pronamespace WHERE nspname = 'public'"
            )
        )
    }

    written = {t for body in bodies.values() for t in re.findall(r"INSERT INTO (\w+)", body)}
    emptied = {
        r.function: set(re.findall(r"DELETE FROM (\w+)", bodies[r.function])) for r in RECOUNTS
    }

    assert written == {s.table for s in SUMMARIES}
    assert emptied == {r.function: set(r.summaries) for r in RECOUNTS}
    assert all(s.watches for s in SUMMARIES)


def _body(text: str) -> str:
    """The dollar-quoted body of a function's file, whitespace normalised."""
    body = re.search(r"AS (\$\w*\$)(.*)\1", text, re.S)
    assert body is not None
    return " ".join(body[2].split())


def test_each_function_in_the_database_is_its_manifest_version(database: _Database) -> None:
    live = {
        r["proname"]: " ".join(r["prosrc"].split())
        for r in database.run(
            database.conn.fetch(
                "SELECT proname, prosrc FROM pg_proc p JOIN pg_namespace n "
                "ON n.oid = p.pronamespace WHERE nspname = 'public'"
            )
        )
    }

    assert {f.name: live[f.name] for f in FUNCTIONS} == {
        f.name: _body(sql(f.name, f.version)) for f in FUNCTIONS
    }


# -- the triggers against the recounts ---------------------------------------------------------


@dataclass(frozen=True)
class _Answer:
    tokens: int
    markdown: float
    ttft: int | None
    duration: int
    error: str | None
    cost_nano: int | None
    days: int


@dataclass(frozen=True)
class _Vote:
    vote: str
    method: str
    hours: int


@dataclass(frozen=True)
class _Round:
    pair: tuple[int, int]
    categories: list[str] | None
    language: str | None
    answers: tuple[_Answer | None, _Answer | None]
    vote: _Vote | None
    vote_first: bool


@dataclass(frozen=True)
class _LateVote:
    target: int
    vote: _Vote


@dataclass(frozen=True)
class _DeleteVote:
    target: int


@dataclass(frozen=True)
class _Reclassify:
    target: int
    categories: list[str] | None
    language: str | None


@dataclass(frozen=True)
class _Exclude:
    target: int


_Op = _Round | _LateVote | _DeleteVote | _Reclassify | _Exclude

_answers = st.builds(
    _Answer,
    tokens=st.integers(0, 900),
    markdown=st.sampled_from([0.0, 0.125, 0.5, 1.0]),
    ttft=st.none() | st.integers(0, 2_500),
    duration=st.integers(0, 9_000),
    error=st.sampled_from([None, None, "failed"]),
    cost_nano=st.none() | st.integers(0, 10**6),
    days=st.integers(0, 2),
)
_votes = st.builds(
    _Vote,
    vote=st.sampled_from(VOTES),
    method=st.sampled_from(["human", "judge"]),
    hours=st.integers(0, 3),
)
_targets = st.integers(0, 20)
_ops: st.SearchStrategy[_Op] = st.one_of(
    st.builds(
        _Round,
        pair=st.sampled_from([(0, 1), (1, 0), (0, 2), (2, 1)]),
        categories=st.sampled_from(_SLICES),
        language=st.sampled_from(_LANGUAGES),
        answers=st.tuples(st.none() | _answers, st.none() | _answers),
        vote=st.none() | _votes,
        vote_first=st.booleans(),
    ),
    st.builds(_LateVote, target=_targets, vote=_votes),
    st.builds(_DeleteVote, target=_targets),
    st.builds(
        _Reclassify,
        target=_targets,
        categories=st.sampled_from(_SLICES),
        language=st.sampled_from(_LANGUAGES),
    ),
    st.builds(_Exclude, target=_targets),
)


class _Writer:
    """Applies operations through plain SQL, as every writer's statements reach the triggers."""

    def __init__(self, conn: asyncpg.Connection, models: tuple[uuid.UUID, ...]) -> None:
        self.conn = conn
        self.models = models
        self.rounds: list[tuple[uuid.UUID, uuid.UUID, uuid.UUID]] = []

    def _round(self, target: int) -> tuple[uuid.UUID, uuid.UUID, uuid.UUID] | None:
        return self.rounds[target % len(self.rounds)] if self.rounds else None

    async def vote(self, matchup: uuid.UUID, a: uuid.UUID, b: uuid.UUID, vote: _Vote) -> None:
        winner = {"A": a, "B": b}.get(SLOT_PICKED.get(vote.vote, ""))
        await self.conn.execute(
            "INSERT INTO preferences (id, matchup_id, vote, winner_model_id, method, created_at) "
            "VALUES ($1, $2, $3, $4, $5, $6) ON CONFLICT (matchup_id) DO NOTHING",
            uuid.uuid4(),
            matchup,
            vote.vote,
            winner,
            vote.method,
            _T0 + timedelta(hours=vote.hours, minutes=7),
        )

    async def answer(self, matchup: uuid.UUID, slot: str, model: uuid.UUID, a: _Answer) -> None:
        await self.conn.execute(
            "INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, ttft_ms, "
            "stream_duration_ms, output_token_count, token_count_source, markdown_density, "
            "error, input_token_count, cost_usd, created_at) "
            "VALUES ($1, $2, $3, $4, 'c', $5, $6, $5, $7, 'estimated', $8, $9, $7, $10, $11)",
            uuid.uuid4(),
            matchup,
            slot,
            model,
            a.duration,
            a.ttft,
            a.tokens,
            a.markdown,
            a.error,
            None if a.cost_nano is None else Decimal(a.cost_nano) / 10**9,
            _T0 + timedelta(days=a.days),
        )

    async def apply(self, op: _Op) -> None:
        if isinstance(op, _Round):
            a, b = (self.models[i] for i in op.pair)
            matchup = uuid.uuid4()
            await self.conn.execute(
                "INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, "
                "slot_b_model_id, slot_a_provider_model_id, slot_b_provider_model_id, "
                "matchup_token_hash, categories, language) "
                "VALUES ($1, 'p', $2, $3, $2, $3, 'pa', 'pb', 'h', $4, $5)",
                matchup,
                a,
                b,
                op.categories,
                op.language,
            )
            self.rounds.append((matchup, a, b))
            if op.vote is not None and op.vote_first:
                await self.vote(matchup, a, b, op.vote)
            for slot, model, given_answer in (("A", a, op.answers[0]), ("B", b, op.answers[1])):
                if given_answer is not None:
                    await self.answer(matchup, slot, model, given_answer)
            if op.vote is not None and not op.vote_first:
                await self.vote(matchup, a, b, op.vote)
            return
        found = self._round(op.target)
        if found is None:
            return
        matchup, a, b = found
        if isinstance(op, _LateVote):
            await self.vote(matchup, a, b, op.vote)
        elif isinstance(op, _DeleteVote):
            await self.conn.execute("DELETE FROM preferences WHERE matchup_id = $1", matchup)
        elif isinstance(op, _Reclassify):
            await self.conn.execute(
                "UPDATE matchups SET categories = $2, language = $3 WHERE id = $1",
                matchup,
                op.categories,
                op.language,
            )
        else:  # the rating process's filters leave a vote out: no summary changes
            await self.conn.execute(
                "INSERT INTO vote_exclusions (preference_id, reason) "
                "SELECT id, 'identity_leak' FROM preferences WHERE matchup_id = $1 "
                "ON CONFLICT DO NOTHING",
                matchup,
            )


async def _maintained_and_recounted(
    database: _Database, ops: list[_Op], *, before: str | None = None
) -> tuple[Snapshot, Snapshot]:
    """Apply ``ops`` (after the statement ``before``, if any), snapshot the summaries, recount
    them, snapshot again; all in a transaction that is rolled back."""
    conn = database.conn
    transaction = conn.transaction()
    await transaction.start()
    try:
        if before is not None:
            await conn.execute(before)
        writer = _Writer(conn, database.models)
        for op in ops:
            await writer.apply(op)
        maintained = await snapshot(conn)
        await rebuild(conn)
        return maintained, await snapshot(conn)
    finally:
        await transaction.rollback()


@settings(
    max_examples=30,
    deadline=None,
    suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow],
)
@given(ops=st.lists(_ops, min_size=1, max_size=14))
def test_the_triggers_keep_every_summary_equal_to_a_recount(
    database: _Database, ops: list[_Op]
) -> None:
    maintained, recounted = database.run(_maintained_and_recounted(database, ops))

    assert_same(maintained, recounted)


_SOME_WRITES: list[_Op] = [
    _Round((0, 1), ["coding"], "en", (_Answer(10, 0.5, 100, 900, None, 5, 0), None), None, False),
    _Round((2, 1), ["math"], "en", (None, None), _Vote("left", "human", 1), True),
    _Reclassify(0, ["math"], "de"),
]


@pytest.mark.parametrize("trigger", [pytest.param(t, id=t.name) for t in TRIGGERS])
def test_a_missing_trigger_makes_its_summaries_differ_from_the_recount(
    database: _Database, trigger: Trigger
) -> None:
    """The comparison above would catch a broken trigger: without one, a summary drifts."""
    maintained, recounted = database.run(
        _maintained_and_recounted(
            database, _SOME_WRITES, before=f"DROP TRIGGER {trigger.name} ON {trigger.table}"
        )
    )

    with pytest.raises(AssertionError):
        assert_same(maintained, recounted)
