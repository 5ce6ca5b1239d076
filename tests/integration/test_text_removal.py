"""Removing what people wrote: `arena db forget-session` clears a session's prompts and answers
and anonymises its votes; `ARENA_TEXT_RETENTION_DAYS` (`arena db prune-text`, and hourly in a
serving process) clears text past an age. Votes and summaries stay exactly as a recount finds
them, and the rounds whose text went still read, with empty text."""

from __future__ import annotations

import asyncio
import json
import subprocess
import uuid
from collections.abc import AsyncIterator, Callable
from datetime import timedelta

import asyncpg
import pytest

from arena_api.bootstrap import bootstrap
from arena_api.db.demo import DemoOptions, seed_demo
from arena_api.db.engine import create_engine
from arena_api.db.export import PostgresVoteRows
from arena_api.db.read_model import rebuild
from arena_api.db.repository import PostgresRepository, create_pool
from arena_api.db.retention import clear_old_text
from arena_api.services import ReadService
from tests.fixtures import prepare_database
from tests.support import make_settings, run_blocking, run_cli
from tests.unit.db.summaries import assert_same, snapshot

DAYS = 10


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, {"ARENA_ALLOW_DEV_SECRET": "1", **env})  # type: ignore[no-any-return]


def _dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


@pytest.fixture
def history(fresh_database: Callable[[], str]) -> str:
    """600 demo votes over 30 days, and on each of the ten oldest and newest rounds a steer
    and a judge's verdict, whose text goes with the round's."""
    url = prepare_database(fresh_database())
    run_blocking(seed_demo(_dsn(url), DemoOptions(votes=600, models=3, days=30, seed=11)))
    run_blocking(_steer_and_judge(url))
    return url


_OLDEST_AND_NEWEST = (
    "(SELECT id, created_at FROM matchups ORDER BY created_at LIMIT 10) UNION ALL "
    "(SELECT id, created_at FROM matchups ORDER BY created_at DESC LIMIT 10)"
)


async def _steer_and_judge(url: str, rounds_query: str = _OLDEST_AND_NEWEST) -> None:
    conn = await asyncpg.connect(_dsn(url))
    try:
        rounds = await conn.fetch(rounds_query)
        for r in rounds:
            await conn.execute(
                "UPDATE matchups SET steers = $2::jsonb WHERE id = $1",
                r["id"],
                json.dumps([{"instruction": "be brief", "at": "A"}]),
            )
            await conn.execute(
                "INSERT INTO judge_verdicts (id, matchup_id, created_at, judge_name, "
                "judge_provider, judge_model_id, outcome, swapped, readings, reasoning) "
                "VALUES ($1, $2, $3, 'judge', 'mock', 'judge-1', 'A', false, $4::jsonb, $5)",
                uuid.uuid4(),
                r["id"],
                r["created_at"],
                json.dumps([{"shownFirst": "A", "outcome": "A", "text": "A is better"}]),
                "A is better",
            )
    finally:
        await conn.close()


async def _fetch(url: str, query: str, *args: object) -> list[asyncpg.Record]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        return await conn.fetch(query, *args)
    finally:
        await conn.close()


async def _assert_summaries_are_a_recount(url: str) -> None:
    """The summaries the triggers kept equal what `arena db rebuild` recounts."""
    conn = await asyncpg.connect(_dsn(url))
    try:
        kept = await snapshot(conn)
        async with conn.transaction():
            await rebuild(conn)
        assert_same(kept, await snapshot(conn))
    finally:
        await conn.close()


# A round's text, whether it is all there (every text non-empty) or all gone (every text empty).
_ROUND_TEXT = """
SELECT m.id, m.created_at, m.prompt_key,
       array[m.prompt, t.prompt] || array_agg(r.content) AS texts,
       (SELECT array_agg(s ->> 'instruction') FROM jsonb_array_elements(m.steers) s) AS steers,
       (SELECT array_agg(v.reasoning) || array_agg(e ->> 'text')
          FROM judge_verdicts v CROSS JOIN jsonb_array_elements(v.readings) e
         WHERE v.matchup_id = m.id) AS verdicts
  FROM matchups m JOIN turns t ON t.matchup_id = m.id
  JOIN responses r ON r.matchup_id = m.id AND r.error IS NULL
 GROUP BY m.id, t.prompt
"""


def _is_blank(row: asyncpg.Record) -> bool:
    texts = [*row["texts"], *(row["steers"] or ()), *(row["verdicts"] or ())]
    return all(t == "" for t in texts)


def _is_whole(row: asyncpg.Record) -> bool:
    texts = [*row["texts"], *(row["steers"] or ()), *(row["verdicts"] or ())]
    return all(t != "" for t in texts)


_SESSION_ROUNDS = """
SELECT t.matchup_id FROM turns t JOIN conversations c ON c.id = t.conversation_id
 WHERE c.anonymous_session_id = $1
"""


def test_forget_session_clears_its_text_and_anonymises_its_votes(history: str) -> None:
    session = run_blocking(
        _fetch(
            history,
            "SELECT anonymous_session_id AS id, count(*) AS votes FROM preferences "
            "GROUP BY 1 ORDER BY 2 DESC, 1 LIMIT 1",
        )
    )[0]
    mine = {r[0] for r in run_blocking(_fetch(history, _SESSION_ROUNDS, session["id"]))}
    first = min(mine)
    run_blocking(
        _steer_and_judge(history, f"SELECT id, created_at FROM matchups WHERE id = '{first}'")
    )
    run_blocking(
        _fetch(
            history,
            "INSERT INTO external_chats (chat_key, session_id, matchup_id) VALUES ('k', $1, $2)",
            session["id"],
            first,
        )
    )

    result = _arena("db", "forget-session", session["id"], DATABASE_URL=history)

    assert result.returncode == 0, result.stderr
    assert f"{session['votes']} votes" in result.stdout
    assert f"text cleared in {len(mine)} rounds" in result.stdout
    assert "1 judge verdicts); 1 chat links removed" in result.stdout
    rounds = {r["id"]: r for r in run_blocking(_fetch(history, _ROUND_TEXT))}
    assert all(_is_blank(rounds[m]) and rounds[m]["prompt_key"] is None for m in mine)
    assert all(_is_whole(r) for m, r in rounds.items() if m not in mine)
    aliases = run_blocking(
        _fetch(
            history,
            "SELECT anonymous_session_id, count(*) FROM preferences p "
            "WHERE matchup_id = ANY($1::uuid[]) GROUP BY 1",
            list(mine),
        )
    )
    assert len(aliases) == 1 and aliases[0][0].startswith("forgotten-")
    left = "SELECT count(*) FROM {} WHERE {} = $1"
    for table, column in (
        ("preferences", "anonymous_session_id"),
        ("conversations", "anonymous_session_id"),
        ("external_chats", "session_id"),
    ):
        assert run_blocking(_fetch(history, left.format(table, column), session["id"]))[0][0] == 0
    run_blocking(_assert_summaries_are_a_recount(history))


def test_forgetting_an_unknown_session_has_nothing_to_forget(history: str) -> None:
    result = _arena("db", "forget-session", "nobody-here", DATABASE_URL=history)

    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == (
        "arena: nothing to forget: no vote, round or conversation has session 'nobody-here'"
    )


def test_prune_text_clears_the_text_older_than_the_days_and_nothing_else(history: str) -> None:
    votes = "SELECT count(*) FROM preferences"
    before = run_blocking(_fetch(history, votes))[0][0]

    result = _arena("db", "prune-text", "--days", str(DAYS), DATABASE_URL=history)

    assert result.returncode == 0, result.stderr
    assert result.stdout.startswith(f"arena: cleared text older than {DAYS} days: ")
    rows = run_blocking(
        _fetch(history, f"SELECT *, created_at < now() - interval '{DAYS} days' AS old FROM ("
               f"{_ROUND_TEXT}) AS x")
    )  # fmt: skip
    assert {r["old"] for r in rows} == {True, False}
    assert all(_is_blank(r) if r["old"] else _is_whole(r) for r in rows)
    assert all(r["prompt_key"] is not None for r in rows)
    assert run_blocking(_fetch(history, votes))[0][0] == before
    run_blocking(_assert_summaries_are_a_recount(history))


def test_prune_text_with_retention_off_and_no_days_clears_nothing(history: str) -> None:
    result = _arena("db", "prune-text", DATABASE_URL=history)

    assert result.returncode == 0, result.stderr
    assert "text retention is off" in result.stdout


async def _cleared_twice(url: str) -> tuple[int, int]:
    conn = await asyncpg.connect(_dsn(url))
    try:
        first = await clear_old_text(conn, timedelta(days=DAYS), batch=50)
        second = await clear_old_text(conn, timedelta(days=DAYS))
    finally:
        await conn.close()
    assert first is not None and second is not None
    return first.total, second.total


def test_clearing_old_text_again_finds_nothing_left(history: str) -> None:
    first, second = run_blocking(_cleared_twice(history))

    assert first > 0
    assert second == 0


@pytest.fixture
async def reads(history: str) -> AsyncIterator[tuple[ReadService, PostgresVoteRows]]:
    engine = create_engine(history, pool_size=2)
    pool = await create_pool(history, max_size=2)
    yield ReadService(repository=PostgresRepository(engine, pool)), PostgresVoteRows(pool, b"s")
    await pool.close()
    await engine.dispose()


async def test_a_round_whose_text_was_cleared_reads_with_empty_text(
    history: str, reads: tuple[ReadService, PostgresVoteRows]
) -> None:
    service, export = reads
    conn = await asyncpg.connect(_dsn(history))
    try:
        await clear_old_text(conn, timedelta(0))
        voted = await conn.fetchval("SELECT matchup_id FROM preferences LIMIT 1")
        owner = await conn.fetchrow(
            "SELECT id, anonymous_session_id FROM conversations ORDER BY id LIMIT 1"
        )
    finally:
        await conn.close()

    shared = await service.shared_matchup(voted)
    conversation = await service.conversation(owner["id"], owner["anonymous_session_id"])
    rows = [row async for batch in export.batches(None, None, include_text=True) for row in batch]

    assert shared.prompt == "" and all(a.content == "" for a in shared.answers)
    assert all(t.prompt == "" for t in conversation.turns)
    assert {(r["prompt"], r["answer_a"] or "", r["answer_b"] or "") for r in rows} == {("", "", "")}


async def test_a_serving_process_clears_old_text_as_it_starts(history: str) -> None:
    settings = make_settings(history, ARENA_TEXT_RETENTION_DAYS=str(DAYS))
    old = (
        "SELECT count(*) FROM responses WHERE content <> '' "
        f"AND created_at < now() - interval '{DAYS} days'"
    )
    assert (await _fetch(history, old))[0][0] > 0

    async with bootstrap(settings):
        for _ in range(200):
            if (await _fetch(history, old))[0][0] == 0:
                break
            await asyncio.sleep(0.05)

    assert (await _fetch(history, old))[0][0] == 0
