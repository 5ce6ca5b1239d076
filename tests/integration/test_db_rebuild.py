"""`arena db rebuild` recounts every summary of the read model from the stored rounds and votes."""

from __future__ import annotations

import subprocess
import uuid
from collections.abc import Callable
from datetime import UTC, datetime

import asyncpg

from arena_api.db.read_model import SUMMARIES
from tests.fixtures import prepare_database
from tests.support import run_blocking, run_cli
from tests.unit.db.summaries import Snapshot, assert_same, snapshot


def _arena(*args: str, **env: str) -> subprocess.CompletedProcess[str]:
    return run_cli(args, env)  # type: ignore[no-any-return]


async def _votes_then_summaries_wiped(dsn: str) -> Snapshot:
    """Rounds with answers and votes written through the triggers; the summaries they kept are
    returned, then emptied as a bulk load with disabled triggers would leave them."""
    conn = await asyncpg.connect(dsn)
    try:
        a, b = uuid.uuid4(), uuid.uuid4()
        await conn.executemany(
            "INSERT INTO models (id, display_name, provider, provider_model_id) "
            "VALUES ($1, $2, 'mock', $2)",
            [(a, "alpha"), (b, "beta")],
        )
        for k, vote in enumerate(["left", "right", "both_good", "skip", "left"]):
            matchup = uuid.uuid4()
            await conn.execute(
                "INSERT INTO matchups (id, prompt, model_a_id, model_b_id, slot_a_model_id, "
                "slot_b_model_id, slot_a_provider_model_id, slot_b_provider_model_id, "
                "matchup_token_hash, categories, language) "
                "VALUES ($1, 'p', $2, $3, $2, $3, 'pa', 'pb', 'h', $4, 'en')",
                matchup,
                a,
                b,
                ["coding"] if k % 2 else ["math"],
            )
            for slot, model in (("A", a), ("B", b)):
                await conn.execute(
                    "INSERT INTO responses (id, matchup_id, slot, model_id, content, latency_ms, "
                    "ttft_ms, stream_duration_ms, output_token_count, token_count_source, "
                    "markdown_density, cost_usd, created_at) "
                    "VALUES ($1, $2, $3, $4, 'c', 900, $5, 900, $6, 'estimated', 0.5, 0.001, $7)",
                    uuid.uuid4(),
                    matchup,
                    slot,
                    model,
                    100 + 10 * k,
                    50 * (k + 1),
                    datetime(2026, 12, 1, k, tzinfo=UTC),
                )
            await conn.execute(
                "INSERT INTO preferences (id, matchup_id, vote, method) VALUES ($1, $2, $3, $4)",
                uuid.uuid4(),
                matchup,
                vote,
                "judge" if k == 4 else "human",
            )
        kept = await snapshot(conn)
        for summary in SUMMARIES:
            await conn.execute(f"DELETE FROM {summary.table}")
        return kept
    finally:
        await conn.close()


async def _summaries(dsn: str) -> Snapshot:
    conn = await asyncpg.connect(dsn)
    try:
        return await snapshot(conn)
    finally:
        await conn.close()


def test_db_rebuild_recounts_every_summary_and_says_which(
    fresh_database: Callable[[], str],
) -> None:
    url = prepare_database(fresh_database())
    dsn = "postgresql://" + url.partition("://")[2]
    kept = run_blocking(_votes_then_summaries_wiped(dsn))

    result = _arena("db", "rebuild", DATABASE_URL=url)

    assert result.returncode == 0, result.stderr
    assert_same(run_blocking(_summaries(dsn)), kept)
    assert all(kept[s.table] for s in SUMMARIES)
    assert "arena_rebuild_vote_stats() recounted model_vote_stats, pair_vote_stats" in result.stdout
    assert "arena_rebuild_cost() recounted model_cost_daily" in result.stdout
    assert result.stdout.strip().splitlines()[-1] == (
        f"arena: {len(SUMMARIES)} summary tables rebuilt"
    )
