"""The judge's rows on PostgreSQL: its verdicts, the auto-judge's queue of shadow rounds, and the
rounds people voted on that ``arena judge backfill`` may still ask it about.

A verdict is written with its vote, in one transaction, by ``db.votes``: the vote goes in through
the same statement and unique constraint as a person's, and the verdict row records whether it
won that claim. A judge and a person racing on a matchup end with exactly one vote, and the
verdict is kept either way (what it cost was spent).
"""

from __future__ import annotations

import json
import uuid

import asyncpg

from arena_api.core.ids import new_id
from arena_api.core.judging import Judgement
from arena_api.core.populations import HUMAN
from arena_api.core.sides import SKIP
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresAutoJudgeQueue", "PostgresBackfillRounds", "insert_verdict"]

_VERDICT = """
INSERT INTO judge_verdicts (id, matchup_id, source, judge_name, judge_provider, judge_model_id,
                            outcome, vote, recorded, swapped, readings, reasoning,
                            input_tokens, output_tokens, cost_usd, error)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10, $11::jsonb, $12, $13, $14, $15, $16)
"""


async def insert_verdict(conn: asyncpg.Connection, judgement: Judgement, recorded: bool) -> None:
    """Store ``judgement`` (in the caller's transaction, with its vote): ``recorded`` says
    whether its vote won the matchup's one vote."""
    readings = [
        {"shownFirst": r.shown_first, "outcome": r.outcome, "text": r.text}
        for r in judgement.readings
    ]
    await conn.execute(
        _VERDICT,
        new_id(),
        judgement.matchup_id,
        judgement.source,
        judgement.judge_name,
        judgement.judge_provider,
        judgement.judge_model_id,
        judgement.outcome,
        judgement.vote,
        recorded,
        judgement.swapped,
        json.dumps(readings),
        judgement.reasoning,
        judgement.input_tokens,
        judgement.output_tokens,
        judgement.cost_usd,
        judgement.error,
    )


# The oldest shadow matchup that has both answers, no vote, and no claim that is done, used up
# or still leased; claimed (or its lapsed claim renewed) in the same statement. Two workers
# that pick the same matchup cannot both claim it: the second finds the lease fresh.
_CLAIM = """
WITH candidate AS (
  SELECT m.id FROM matchups m
   WHERE m.mode = 'shadow'
     AND NOT EXISTS (SELECT 1 FROM preferences p WHERE p.matchup_id = m.id)
     AND (SELECT count(*) FROM responses r WHERE r.matchup_id = m.id) = 2
     AND NOT EXISTS (
       SELECT 1 FROM autojudge_claims c
        WHERE c.matchup_id = m.id
          AND (c.done OR c.attempts >= $2 OR c.claimed_at > now() - make_interval(secs => $1)))
   ORDER BY m.created_at
   LIMIT 1
)
INSERT INTO autojudge_claims AS c (matchup_id, claimed_at)
SELECT id, now() FROM candidate
ON CONFLICT (matchup_id) DO UPDATE SET claimed_at = now(), attempts = c.attempts + 1
 WHERE NOT c.done AND c.attempts < $2 AND c.claimed_at <= now() - make_interval(secs => $1)
RETURNING matchup_id
"""


@raises_unavailable
class PostgresAutoJudgeQueue:
    """The shadow matchups the auto-judge has still to judge, claimed one at a time."""

    def __init__(self, pool: asyncpg.Pool, *, lease_s: float, max_attempts: int) -> None:
        self._pool = pool
        self._lease_s = lease_s
        self._max_attempts = max_attempts

    async def claim_next(self) -> uuid.UUID | None:
        """Claim the oldest unjudged shadow matchup; None when there is none to claim."""
        async with self._pool.acquire() as conn:
            claimed: uuid.UUID | None = await conn.fetchval(
                _CLAIM, float(self._lease_s), self._max_attempts
            )
        return claimed

    async def finish(self, matchup_id: uuid.UUID) -> None:
        """The matchup is judged (a vote, a tie or an unreadable verdict): never again."""
        async with self._pool.acquire() as conn:
            await conn.execute(
                "UPDATE autojudge_claims SET done = true WHERE matchup_id = $1", matchup_id
            )


# Rounds a person voted on (a skip compares nothing), blind as people's board counts them, whose
# text is still there to read (text retention empties it), with both answers, and that the judge
# has not read: a failed verdict (its endpoint did not answer) may be asked again, an
# unreadable one was an answer and is not. No index orders rounds by time, so the blind rounds
# with text are sorted once (OFFSET 0 keeps the planner from pushing the per-round checks under
# the sort) and checked newest first until the limit is reached: 1.0 s at 1M demo rounds with
# 200k of them judged, against 11.7 s when every round was checked before the sort.
_VOTED_UNJUDGED = f"""
SELECT m.id
  FROM (SELECT id, categories, language
          FROM matchups
         WHERE mode = 'blind' AND prompt <> ''
         ORDER BY created_at DESC, id DESC
        OFFSET 0) m
 WHERE ($2::text IS NULL OR $2::text = ANY(arena_prompt_slices(m.categories, m.language)))
   AND EXISTS (SELECT 1 FROM preferences p
                WHERE p.matchup_id = m.id AND p.method = '{HUMAN}' AND p.vote <> '{SKIP}')
   AND EXISTS (SELECT 1 FROM responses r WHERE r.matchup_id = m.id AND r.slot = 'A')
   AND EXISTS (SELECT 1 FROM responses r WHERE r.matchup_id = m.id AND r.slot = 'B')
   AND NOT EXISTS (SELECT 1 FROM judge_verdicts v
                    WHERE v.matchup_id = m.id AND v.outcome <> 'failed')
 LIMIT $1
"""
_OUTPUT_PER_READING = """
SELECT sum(output_tokens)::float8 / NULLIF(sum(jsonb_array_length(readings)), 0)
  FROM judge_verdicts
 WHERE judge_provider = $1 AND judge_model_id = $2
"""


@raises_unavailable
class PostgresBackfillRounds:
    """The rounds people voted on that the judge has not read yet."""

    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def voted_unjudged(self, limit: int, category: str | None) -> list[uuid.UUID]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_VOTED_UNJUDGED, limit, category)
        return [r["id"] for r in rows]

    async def output_tokens_per_reading(self, provider: str, model_id: str) -> float | None:
        async with self._pool.acquire() as conn:
            found: float | None = await conn.fetchval(_OUTPUT_PER_READING, provider, model_id)
        return found
