"""``JudgementStore`` on PostgreSQL: a judge's verdict and, with it, the matchup's one vote.

One statement: the vote (``method = 'judge'``) goes in through the same unique constraint as a
person's (``ON CONFLICT (matchup_id) DO NOTHING``), and the verdict row records whether it won
that claim. A judge and a person racing on a matchup end with exactly one vote, and the verdict
is kept either way (what it cost was spent).
"""

from __future__ import annotations

import json
import uuid

import asyncpg

from arena_api.core.ids import new_id
from arena_api.core.judging import Judgement
from arena_api.core.records import winner_slot
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresAutoJudgeQueue", "PostgresJudgements"]

_RECORD = """
WITH vote AS (
  INSERT INTO preferences (id, matchup_id, vote, winner_model_id, anonymous_session_id,
                           position_bias_meta, method)
  SELECT $1, $2, $3::text, $4, NULL, $5::jsonb, 'judge' WHERE $3::text IS NOT NULL
  ON CONFLICT (matchup_id) DO NOTHING
  RETURNING id
)
INSERT INTO judge_verdicts (id, matchup_id, source, judge_name, judge_provider, judge_model_id,
                            outcome, vote, recorded, swapped, readings, reasoning,
                            input_tokens, output_tokens, cost_usd, error)
SELECT $6, $2, $7, $8, $9, $10, $11, $3::text, EXISTS (SELECT 1 FROM vote), $12, $13::jsonb,
       $14, $15, $16, $17, $18
RETURNING recorded
"""


@raises_unavailable
class PostgresJudgements:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def record(self, judgement: Judgement, winner_model_id: uuid.UUID | None) -> bool:
        readings = [
            {"shownFirst": r.shown_first, "outcome": r.outcome, "text": r.text}
            for r in judgement.readings
        ]
        async with self._pool.acquire() as conn:
            recorded: bool = await conn.fetchval(
                _RECORD,
                new_id(),
                judgement.matchup_id,
                judgement.vote,
                winner_model_id,
                json.dumps({"selectedSlot": winner_slot(judgement.vote), "judge": True}),
                new_id(),
                judgement.source,
                judgement.judge_name,
                judgement.judge_provider,
                judgement.judge_model_id,
                judgement.outcome,
                judgement.swapped,
                json.dumps(readings),
                judgement.reasoning,
                judgement.input_tokens,
                judgement.output_tokens,
                judgement.cost_usd,
                judgement.error,
            )
        return recorded


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
