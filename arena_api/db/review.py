"""Expert review queues on PostgreSQL (migration 0024): queues, their rounds and reviewers, and
the verdicts, one per reviewer and item.

The verdicts themselves are written by the one vote path (``db.votes.PostgresVotes``).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Sequence
from datetime import datetime
from typing import Any

import asyncpg

from arena_api.core.review import ItemVerdicts
from arena_api.core.users import Actor, AuditEntry
from arena_api.db.outages import raises_unavailable
from arena_api.db.users import write_audit

__all__ = ["PostgresReview", "QueueRow", "ReviewItemRow", "ReviewerProgress"]


class QueueRow(dict[str, Any]):
    """A queue's summary: id, name, k, items, complete, created_at (and ``mine`` for a
    reviewer: the items they gave a verdict or passed)."""


class ReviewItemRow(dict[str, Any]):
    """An item as a reviewer sees it: id, position, history (the conversation before it: prompt
    and answer pairs), prompt, answer_a, answer_b, done, total."""


class ReviewerProgress(dict[str, Any]):
    """One reviewer's progress on a queue: user_id, label, verdicts, skips."""


_QUEUES = """
SELECT q.id, q.name, q.reviews_per_item AS k, q.created_at, q.pending,
       (SELECT count(*) FROM review_items i WHERE i.queue_id = q.id) AS items,
       (SELECT count(*) FROM review_items i WHERE i.queue_id = q.id
           AND (SELECT count(*) FROM review_verdicts v
                 WHERE v.item_id = i.id AND v.vote <> 'skip') >= q.reviews_per_item) AS complete,
       (SELECT count(*) FROM review_verdicts v JOIN review_items i ON i.id = v.item_id
         WHERE i.queue_id = q.id AND v.reviewer_id = $1) AS mine
  FROM review_queues q
 WHERE ($1::uuid IS NULL
        OR EXISTS (SELECT 1 FROM review_queue_reviewers r
                    WHERE r.queue_id = q.id AND r.user_id = $1))
   AND ($2::uuid IS NULL OR q.id = $2)
 ORDER BY q.created_at DESC
"""
_PROGRESS = """
SELECT r.user_id, coalesce(u.email, u.name, u.id::text) AS label,
       count(v.id) FILTER (WHERE v.vote <> 'skip') AS verdicts,
       count(v.id) FILTER (WHERE v.vote = 'skip') AS skips
  FROM review_queue_reviewers r
  JOIN users u ON u.id = r.user_id
  LEFT JOIN review_items i ON i.queue_id = r.queue_id
  LEFT JOIN review_verdicts v ON v.item_id = i.id AND v.reviewer_id = r.user_id
 WHERE r.queue_id = $1
 GROUP BY r.user_id, label
 ORDER BY label
"""
# The first item, in order, that still needs a verdict and that this reviewer has not seen.
_NEXT = """
SELECT i.id, i.position, m.prompt, ra.content AS answer_a, rb.content AS answer_b,
       -- The conversation before this round: each earlier prompt and the answer it went on
       -- from (the one the next turn continued), as the voters saw it.
       (SELECT json_agg(json_build_object('prompt', pm.prompt, 'answer', pr.content)
                        ORDER BY t.turn_index)
          FROM turns cur
          JOIN turns t ON t.conversation_id = cur.conversation_id
                      AND t.turn_index < cur.turn_index
          JOIN matchups pm ON pm.id = t.matchup_id
          JOIN turns nxt ON nxt.conversation_id = t.conversation_id
                        AND nxt.turn_index = t.turn_index + 1
          JOIN responses pr ON pr.id = nxt.parent_response_id
         WHERE cur.matchup_id = m.id) AS history
  FROM review_items i
  JOIN review_queues q ON q.id = i.queue_id
  JOIN matchups m ON m.id = i.matchup_id
  LEFT JOIN responses ra ON ra.matchup_id = m.id AND ra.slot = 'A'
  LEFT JOIN responses rb ON rb.matchup_id = m.id AND rb.slot = 'B'
 WHERE i.queue_id = $1
   AND NOT EXISTS (SELECT 1 FROM review_verdicts v WHERE v.item_id = i.id AND v.reviewer_id = $2)
   AND (SELECT count(*) FROM review_verdicts v
         WHERE v.item_id = i.id AND v.vote <> 'skip') < q.reviews_per_item
 ORDER BY i.position
 LIMIT 1
"""
# What is left for this reviewer, and what they did.
_MY_PROGRESS = """
SELECT count(*) FILTER (WHERE mine) AS done,
       count(*) FILTER (WHERE mine OR open) AS total
  FROM (SELECT EXISTS (SELECT 1 FROM review_verdicts v
                        WHERE v.item_id = i.id AND v.reviewer_id = $2) AS mine,
               (SELECT count(*) FROM review_verdicts v
                 WHERE v.item_id = i.id AND v.vote <> 'skip') < q.reviews_per_item AS open
          FROM review_items i JOIN review_queues q ON q.id = i.queue_id
         WHERE i.queue_id = $1) s
"""
_IS_REVIEWER = "SELECT 1 FROM review_queue_reviewers WHERE queue_id = $1 AND user_id = $2"
_VERDICTS = """
SELECT i.id, i.position, v.reviewer_id, v.vote,
       (SELECT j.vote FROM judge_verdicts j
         WHERE j.matchup_id = i.matchup_id AND j.vote IS NOT NULL
         ORDER BY j.created_at DESC LIMIT 1) AS judge,
       (SELECT p.vote FROM preferences p
         WHERE p.matchup_id = i.matchup_id AND p.method = 'human') AS people
  FROM review_items i
  LEFT JOIN review_verdicts v ON v.item_id = i.id AND v.vote <> 'skip'
 WHERE i.queue_id = $1
 ORDER BY i.position, v.created_at
"""
_SUITE_ROUNDS = """
SELECT r.matchup_id FROM suite_results r
  JOIN responses ra ON ra.matchup_id = r.matchup_id AND ra.slot = 'A' AND ra.error IS NULL
  JOIN responses rb ON rb.matchup_id = r.matchup_id AND rb.slot = 'B' AND rb.error IS NULL
 WHERE r.run_id = $1
 ORDER BY r.prompt_index
"""
_STORED_ROUNDS = """
SELECT m.id FROM matchups m
  JOIN responses ra ON ra.matchup_id = m.id AND ra.slot = 'A' AND ra.error IS NULL
  JOIN responses rb ON rb.matchup_id = m.id AND rb.slot = 'B' AND rb.error IS NULL
 WHERE m.mode IN ('blind', 'named')
   AND ($1::text IS NULL OR $1 = ANY(arena_prompt_slices(m.categories, m.language)))
   AND ($2::uuid[] IS NULL OR (m.slot_a_model_id = ANY($2) AND m.slot_b_model_id = ANY($2)))
   AND ($3::timestamptz IS NULL OR m.created_at >= $3)
   AND ($4::timestamptz IS NULL OR m.created_at < $4)
 ORDER BY m.created_at DESC
 LIMIT $5
"""


@raises_unavailable
class PostgresReview:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def suite_rounds(self, run_id: uuid.UUID) -> list[uuid.UUID]:
        """A suite run's rounds whose two answers both came, in its prompts' order."""
        async with self._pool.acquire() as conn:
            return [r["matchup_id"] for r in await conn.fetch(_SUITE_ROUNDS, run_id)]

    async def stored_rounds(
        self,
        category: str | None,
        models: Sequence[uuid.UUID] | None,
        since: datetime | None,
        until: datetime | None,
        limit: int,
    ) -> list[uuid.UUID]:
        """Stored rounds with both answers, newest first, in one slice of prompts, between two
        models (both slots among ``models``), in ``[since, until)``."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                _STORED_ROUNDS,
                category,
                None if models is None else list(models),
                since,
                until,
                limit,
            )
        return [r["id"] for r in rows]

    async def create(
        self,
        name: str,
        k: int,
        source: dict[str, Any],
        reviewers: Sequence[str],
        matchups: Sequence[uuid.UUID],
        actor: Actor,
        pending: int = 0,
    ) -> uuid.UUID:
        """A new queue of ``matchups``; ``pending`` rounds more to come (``add_round``)."""
        queue_id = uuid.uuid4()
        async with self._pool.acquire() as conn, conn.transaction():
            await conn.execute(
                "INSERT INTO review_queues "
                "(id, name, reviews_per_item, source, created_by, pending) "
                "VALUES ($1, $2, $3, $4::jsonb, $5, $6)",
                queue_id,
                name,
                k,
                json.dumps(source),
                None if actor.id is None else uuid.UUID(actor.id),
                pending,
            )
            await conn.executemany(
                "INSERT INTO review_queue_reviewers (queue_id, user_id) VALUES ($1, $2)",
                [(queue_id, uuid.UUID(r)) for r in reviewers],
            )
            await conn.executemany(
                "INSERT INTO review_items (id, queue_id, position, matchup_id) "
                "VALUES ($1, $2, $3, $4)",
                [(uuid.uuid4(), queue_id, n + 1, m) for n, m in enumerate(matchups)],
            )
            await write_audit(
                conn,
                AuditEntry(
                    actor.id,
                    actor.label,
                    "review_queue_create",
                    target=f"queue:{queue_id}",
                    after={
                        "name": name,
                        "k": k,
                        "items": len(matchups),
                        "reviewers": len(reviewers),
                    },
                ),
            )
        return queue_id

    async def add_round(
        self, queue_id: uuid.UUID, position: int, matchup_id: uuid.UUID | None
    ) -> None:
        """One of the queue's pending rounds was played: its item (none when it failed), and
        one round less to come."""
        async with self._pool.acquire() as conn, conn.transaction():
            if matchup_id is not None:
                await conn.execute(
                    "INSERT INTO review_items (id, queue_id, position, matchup_id) "
                    "VALUES ($1, $2, $3, $4) ON CONFLICT DO NOTHING",
                    uuid.uuid4(),
                    queue_id,
                    position,
                    matchup_id,
                )
            await conn.execute(
                "UPDATE review_queues SET pending = greatest(pending - 1, 0) WHERE id = $1",
                queue_id,
            )

    async def queues(self, reviewer_id: str | None) -> list[QueueRow]:
        """Every queue (``None``), or the ones ``reviewer_id`` reviews, newest first."""
        key = None if reviewer_id is None else uuid.UUID(reviewer_id)
        async with self._pool.acquire() as conn:
            return [QueueRow(r) for r in await conn.fetch(_QUEUES, key, None)]

    async def queue(self, queue_id: uuid.UUID) -> QueueRow | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_QUEUES, None, queue_id)
        return None if row is None else QueueRow(row)

    async def progress(self, queue_id: uuid.UUID) -> list[ReviewerProgress]:
        async with self._pool.acquire() as conn:
            return [ReviewerProgress(r) for r in await conn.fetch(_PROGRESS, queue_id)]

    async def is_reviewer(self, queue_id: uuid.UUID, user_id: str) -> bool:
        async with self._pool.acquire() as conn:
            return await conn.fetchval(_IS_REVIEWER, queue_id, uuid.UUID(user_id)) is not None

    async def next_item(self, queue_id: uuid.UUID, user_id: str) -> ReviewItemRow | None:
        """The reviewer's next item, with how many they did of how many there are for them."""
        key = uuid.UUID(user_id)
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_NEXT, queue_id, key)
            done, total = await conn.fetchrow(_MY_PROGRESS, queue_id, key)
        if row is None:
            return None
        history = json.loads(row["history"]) if row["history"] else []
        return ReviewItemRow(
            {**dict(row), "history": history, "done": int(done), "total": int(total)}
        )

    async def my_progress(self, queue_id: uuid.UUID, user_id: str) -> tuple[int, int]:
        async with self._pool.acquire() as conn:
            done, total = await conn.fetchrow(_MY_PROGRESS, queue_id, uuid.UUID(user_id))
        return int(done), int(total)

    async def verdicts(self, queue_id: uuid.UUID) -> list[ItemVerdicts]:
        """Every item's verdicts other than skips, in order, with the judge's and the people's
        votes on its round."""
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_VERDICTS, queue_id)
        items: dict[uuid.UUID, ItemVerdicts] = {}
        for r in rows:
            item = items.get(r["id"])
            if item is None:
                item = items[r["id"]] = ItemVerdicts(
                    str(r["id"]), r["position"], {}, judge=r["judge"], people=r["people"]
                )
            if r["reviewer_id"] is not None:
                item.votes[str(r["reviewer_id"])] = r["vote"]  # type: ignore[index]
        return list(items.values())
