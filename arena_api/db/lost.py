"""Rounds whose process died mid-stream: their missing answers are stored, empty and marked.

A replica of a cluster that stops without warning (killed, out of memory, its machine gone)
takes the answers it was streaming with it: they were only in its memory. Another replica finds
its rounds (``arena_api.cluster.janitor``) and stores, for every slot without an answer, an empty
one marked ``replica_lost``, so each round has both its rows, like a round a stop cut short.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence

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
WHERE m.id = ANY($1::uuid[])
ON CONFLICT (matchup_id, slot) DO NOTHING
"""


async def mark_lost_rounds(pool: asyncpg.Pool, matchup_ids: Sequence[uuid.UUID]) -> int:
    """Store the missing answers of ``matchup_ids`` as lost; how many were missing."""
    if not matchup_ids:
        return 0
    status = await pool.execute(_MARK, list(matchup_ids), REPLICA_LOST)
    return int(status.rsplit(" ", 1)[-1])
