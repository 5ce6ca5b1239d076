"""The summary tables behind every read: kept by triggers, equal to a recount, exact under races."""

from __future__ import annotations

import asyncio
import random
import uuid
from pathlib import Path

import asyncpg
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.read_model import rebuild
from tests.integration import rows
from tests.integration.analytics._history import answer, arena_of, cast_vote, round_
from tests.unit.db.summaries import assert_same, snapshot


async def test_summary_tables_match_a_recount_after_mixed_writes(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """What the triggers maintain row by row equals the manifest's recount, in every summary."""
    rng = random.Random(11)
    slices = [None, [], ["coding"], ["math", "instruction_following"], ["multi_turn"]]
    async with arena_of(db, database_url, tmp_path, "Alpha", "Beta", "Gamma") as (_, m):
        ids = list(m.values())
        async with db.begin() as conn:
            for k in range(60):
                x, y = rng.sample(ids, 2)
                vote = rng.choice(["left", "right", "both_good", "both_bad", "skip", None])
                matchup = await round_(
                    conn,
                    x,
                    y,
                    vote if k % 2 else None,
                    categories=rng.choice(slices),
                    language=rng.choice([None, "und", "en", "de"]),
                )
                for slot, model in (("A", x), ("B", y)):
                    if rng.random() < 0.9:
                        await answer(
                            conn,
                            matchup,
                            model,
                            slot,
                            tokens=rng.randint(1, 900),
                            markdown=rng.random(),
                            ttft=rng.choice([None, rng.randint(0, 900)]),
                            duration=rng.randint(0, 9000),
                            error=rng.choice([None, None, None, "failed"]),
                        )
                if vote is not None and k % 2 == 0:  # the vote after the answers
                    await cast_vote(conn, matchup, vote, x, y)
            await conn.execute(
                text("DELETE FROM preferences WHERE id IN (SELECT id FROM preferences LIMIT 5)")
            )
            # A backfill reclassifies rounds that were stored unclassified, voted or not.
            await conn.execute(
                text(
                    "UPDATE matchups SET categories = '{coding,math}', language = 'fr' "
                    "WHERE id IN (SELECT id FROM matchups ORDER BY id LIMIT 20)"
                )
            )

        reader = await asyncpg.connect("postgresql://" + database_url.partition("://")[2])
        try:
            maintained = await snapshot(reader)
            async with reader.transaction():
                await rebuild(reader)
            recounted = await snapshot(reader)
        finally:
            await reader.close()

    assert_same(maintained, recounted)


async def test_a_vote_racing_the_last_answer_counts_the_style_delta_exactly_once(
    db: AsyncEngine, database_url: str
) -> None:
    """The vote and the second answer commit in separate, overlapping transactions: neither
    sees the other at first, yet the matchup's style delta is counted once."""
    async with db.begin() as conn:
        a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
        matchup = await round_(conn, a, b)
        await answer(conn, matchup, a, "A", tokens=300)
    dsn = "postgresql://" + database_url.partition("://")[2]
    voter, streamer = await asyncpg.connect(dsn), await asyncpg.connect(dsn)
    try:
        vote = voter.transaction()
        await vote.start()
        await voter.execute(
            "INSERT INTO preferences (id, matchup_id, vote, winner_model_id) "
            "VALUES ($1, $2, 'left', $3)",
            uuid.uuid4(),
            matchup,
            a,
        )
        save = streamer.transaction()
        await save.start()
        second_answer = asyncio.create_task(
            streamer.execute(
                "INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, "
                "ttft_ms, stream_duration_ms, output_token_count, token_count_source, "
                "markdown_density) VALUES ($1, $2, 'B', $3, 'c', 10, 1, 10, 100, 'estimated', 0)",
                uuid.uuid4(),
                matchup,
                b,
            )
        )
        await asyncio.sleep(0.3)
        waited = not second_answer.done()  # serialised behind the vote's matchup lock
        await vote.commit()
        await second_answer
        await save.commit()
    finally:
        await voter.close()
        await streamer.close()

    async with db.connect() as conn:
        counted = (
            await conn.execute(text("SELECT votes, verbosity_sum FROM pair_style_stats"))
        ).all()
    assert waited
    assert [tuple(r) for r in counted] == [(1, 200.0)]
