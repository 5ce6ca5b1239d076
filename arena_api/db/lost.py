"""Rounds whose process died mid-stream: their missing answers are stored, empty and marked.

A replica of a cluster that stops without warning (killed, out of memory, its machine gone)
takes the answers it was streaming with it: they were only in its memory. Another replica finds
its rounds by ``matchups.replica`` (``arena_api.cluster.janitor``) and stores, for every slot
without an answer, an empty one marked ``replica_lost``, so each round has both its rows, like a
round a stop cut short.
"""

from __future__ import annotations

import asyncpg

__all__ = ["REPLICA_LOST", "mark_lost_rounds"]

REPLICA_LOST = "replica_lost"

_MARK = """
INSERT INTO responses (
    id, matchup_id, slot, model_id, content, latency_ms, stream_duration_ms,
    output_token_count, token_count_source, markdown_density, error
)
SELECT gen_random_uuid(), m.id, s.slot,
       CASE s.slot WHEN 'A' THEN m.model_a_id ELSE m.model_b_id END,
       '', 0, 0, 0, 'estimated', 0, $2
FROM matchups AS m CROSS JOIN (VALUES ('A'), ('B')) AS s (slot)
WHERE m.replica = $1
  AND m.created_at > now() - make_interval(secs => $3)
  AND NOT EXISTS (SELECT 1 FROM responses r WHERE r.matchup_id = m.id AND r.slot = s.slot)
ON CONFLICT (matchup_id, slot) DO NOTHING
"""
#: Rounds older than this have long ended, one way or another: not looked at.
HORIZON_S = 86_400.0


async def mark_lost_rounds(pool: asyncpg.Pool, replica: str) -> int:
    """Store the missing answers of the rounds ``replica`` ran as lost; how many were missing."""
    status = await pool.execute(_MARK, replica, REPLICA_LOST, HORIZON_S)
    return int(status.rsplit(" ", 1)[-1])
