"""The shadow auto-judge: the judge votes on shadow matchups in the background, oldest first,
and a restart in the middle neither judges a matchup twice nor skips one."""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.judgements import PostgresAutoJudgeQueue
from arena_api.db.repository import create_pool
from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.test_metrics import votes_counted

SHADOW = {
    "ARENA_EXPOSURE": "shadow",
    "ARENA_DEFAULT_MODEL": "mock-aurora",
    "ARENA_MOCK_TOKENS": "6",
}
ROUNDS = 6


async def _judged(arena: Arena) -> int:
    return int(await arena.scalar("SELECT count(*) FROM judge_verdicts"))


async def _finished(arena: Arena) -> int:
    """Matchups whose claim is marked done: a step after its verdict is stored."""
    return int(await arena.scalar("SELECT count(*) FROM autojudge_claims WHERE done"))


async def _wait_for(
    arena: Arena,
    count: int,
    timeout_s: float = 20,
    counted: Callable[[Arena], Awaitable[int]] = _judged,
) -> int:
    deadline = asyncio.get_running_loop().time() + timeout_s
    while (judged := await counted(arena)) < count:
        if asyncio.get_running_loop().time() > deadline:
            break
        await asyncio.sleep(0.05)
    return judged


async def test_shadow_matchups_are_judged_in_the_background_and_a_restart_resumes(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    # Two per second: slow enough to stop the server with some still unjudged.
    env = {**SHADOW, "ARENA_AUTOJUDGE_RATE": "120"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        for n in range(ROUNDS):
            response, frames = await arena.chat(prompt=f"shadow question {n}")
            assert response.status_code == 200 and frames[-1][0] == "matchup_done"
        before_restart = await _wait_for(arena, 2)
    assert 2 <= before_restart < ROUNDS

    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        after_restart = await _wait_for(arena, ROUNDS)
        # The worker marks a claim done once the verdict is stored, in a step of its own.
        await _wait_for(arena, ROUNDS, counted=_finished)
        verdicts = await arena.rows(
            "SELECT v.matchup_id, count(*) AS n, bool_and(v.source = 'autojudge') AS auto "
            "FROM judge_verdicts v GROUP BY v.matchup_id"
        )
        votes = await arena.rows(
            "SELECT p.method, m.mode FROM preferences p JOIN matchups m ON m.id = p.matchup_id"
        )
        claims = await arena.rows("SELECT done, attempts FROM autojudge_claims")
        shadow = await arena.scalar("SELECT count(*) FROM matchups WHERE mode = 'shadow'")
        on_metrics = await votes_counted(arena.client)

    assert after_restart == ROUNDS == shadow
    assert all(v.n == 1 and v.auto for v in verdicts)  # judged once each, none skipped
    assert len(votes) == ROUNDS and {(v.method, v.mode) for v in votes} == {("judge", "shadow")}
    assert all(c.done for c in claims) and len(claims) == ROUNDS
    # This process's count: the votes cast since the restart.
    assert set(on_metrics) == {("judge", "autojudge")}
    assert 0 < on_metrics["judge", "autojudge"] <= ROUNDS - before_restart


async def test_a_claim_whose_worker_died_is_claimed_again_after_its_lease(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **SHADOW, ARENA_AUTOJUDGE_RATE="0") as arena:
        for n in range(2):
            await arena.chat(prompt=f"q{n}")
        pool = await create_pool(database_url)
        try:
            queue = PostgresAutoJudgeQueue(pool, lease_s=0.3, max_attempts=3)
            first = await queue.claim_next()  # a worker claims it, then dies
            second = await queue.claim_next()  # the lease is fresh: the next one is claimed
            nothing = await queue.claim_next()
            await asyncio.sleep(0.4)
            again = await queue.claim_next()
            await queue.finish(again)  # type: ignore[arg-type]
            await asyncio.sleep(0.4)
            after_done = await queue.claim_next()
            attempts = await arena.scalar(
                "SELECT attempts FROM autojudge_claims WHERE matchup_id = :m", m=first
            )
        finally:
            await pool.close()

    assert first is not None and second is not None and first != second
    assert nothing is None
    assert again == first  # oldest first: the lapsed claim is taken again
    assert attempts == 2
    assert after_done == second  # the finished one never comes back
