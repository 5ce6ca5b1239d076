"""``VoteStore`` on PostgreSQL: the one statement path that writes votes.

Every vote goes in through ``insert_vote`` (one insert into ``preferences`` ``ON CONFLICT
(matchup_id) DO NOTHING``: the unique matchup id is the one-vote rule, whoever races for it).
An expert reviewer's verdict, of which a round may have several, goes into ``review_verdicts``
through ``record_review``. A
chat command's claim and a judge's verdict are written in the same transaction as the vote, so
either both stand or neither does. The counting triggers keep the summaries current within the
same statement. The demo seeder's bulk load writes through ``insert_votes_from``, the same
columns and the same winner rule in set form.
"""

from __future__ import annotations

import json
import uuid
from datetime import timedelta

import asyncpg

from arena_api.core.ids import new_id
from arena_api.core.judging import Judgement
from arena_api.core.ports import ChatVoteResult
from arena_api.core.sides import sql_winner_slot
from arena_api.core.votes import CastVote, ReviewResult, ReviewVerdict
from arena_api.db.chats import chat_state, claim_command
from arena_api.db.judgements import insert_verdict
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresVotes", "insert_vote", "insert_votes_from"]

#: The columns a vote is written with, in order.
VOTE_COLUMNS = (
    "id, matchup_id, vote, winner_model_id, anonymous_session_id, position_bias_meta, method,"
    " reasons, created_at"
)

_INTO = f"INSERT INTO preferences ({VOTE_COLUMNS})"
_INSERT = f"""
INSERT INTO preferences ({VOTE_COLUMNS}, user_id)
VALUES ($1, $2, $3, $4, $5, $6::jsonb, $7, $8::text[], now(), $9)
ON CONFLICT (matchup_id) DO NOTHING
RETURNING id
"""
# A person's votes in the last day and when the oldest of them leaves it (for the cap).
_RECENT = """
SELECT count(*), min(created_at) + interval '1 day' - now()
  FROM preferences WHERE user_id = $1 AND created_at > now() - interval '1 day'
"""


def insert_votes_from(rows: str) -> str:
    """The bulk form of the same insert, for the demo seeder: ``rows`` is a query of (id,
    matchup_id, vote, slot A's model, slot B's model, anonymous session, method, reasons,
    created_at); the winner and the slot picked are derived as for one vote, and the reasons
    (a ``text[]``, ``'{}'`` for none) must be checked ones, as ``CastVote.reasons`` are."""
    winner = sql_winner_slot("v.vote", a="v.slot_a", b="v.slot_b")
    picked = sql_winner_slot("v.vote")
    return f"""
{_INTO}
SELECT v.id, v.matchup_id, v.vote, {winner}, v.session,
       jsonb_build_object('selectedSlot', {picked}), v.method, v.reasons, v.created_at
  FROM ({rows}) AS v (id, matchup_id, vote, slot_a, slot_b, session, method, reasons,
                      created_at)
ON CONFLICT (matchup_id) DO NOTHING
"""


async def insert_vote(conn: asyncpg.Connection, vote: CastVote) -> bool:
    """Store ``vote`` unless its matchup has one; True when this call stored it."""
    inserted = await conn.fetchval(
        _INSERT,
        new_id(),
        vote.matchup_id,
        vote.vote,
        vote.winner_model_id,
        vote.session_id,
        json.dumps(vote.meta()),
        vote.method,
        list(vote.reasons),
        None if vote.user_id is None else uuid.UUID(vote.user_id),
    )
    return inserted is not None


_LOCK_REVIEW_ITEM = """
SELECT i.id, i.queue_id, q.reviews_per_item AS k,
       EXISTS (SELECT 1 FROM review_queue_reviewers r
                WHERE r.queue_id = i.queue_id AND r.user_id = $2) AS assigned
  FROM review_items i JOIN review_queues q ON q.id = i.queue_id
 WHERE i.id = $1
   FOR UPDATE OF i
"""
_REVIEWS_GIVEN = """
SELECT count(*) FILTER (WHERE vote <> 'skip') AS verdicts,
       bool_or(reviewer_id = $2) AS mine
  FROM review_verdicts WHERE item_id = $1
"""
_REVIEW_VERDICT = """
INSERT INTO review_verdicts (id, item_id, reviewer_id, vote, reasons, comment)
VALUES ($1, $2, $3, $4, $5::text[], $6)
"""


@raises_unavailable
class PostgresVotes:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def record(self, vote: CastVote) -> bool:
        async with self._pool.acquire() as conn:
            return await insert_vote(conn, vote)

    async def recent_user_votes(self, user_id: str) -> tuple[int, float]:
        """The person's votes in the last day, and the seconds until the oldest leaves it."""
        async with self._pool.acquire() as conn:
            count, left = await conn.fetchrow(_RECENT, uuid.UUID(user_id))
        return int(count), 0.0 if left is None else max(timedelta(0), left).total_seconds()

    async def record_review(self, verdict: ReviewVerdict) -> ReviewResult:
        """A reviewer's verdict, under a lock on its item: two reviewers racing for an item's
        last review cannot give it more than k; ``(item, reviewer)`` is unique, so a second
        verdict of one reviewer is refused, not counted."""
        key = uuid.UUID(verdict.reviewer_id)
        async with self._pool.acquire() as conn, conn.transaction():
            item = await conn.fetchrow(_LOCK_REVIEW_ITEM, verdict.item_id, key)
            if item is None:
                return "not_found"
            if not item["assigned"]:
                return "not_reviewer"
            given = await conn.fetchrow(_REVIEWS_GIVEN, verdict.item_id, key)
            if given["mine"]:
                return "duplicate"
            if verdict.vote != "skip" and given["verdicts"] >= item["k"]:
                return "complete"
            await conn.execute(
                _REVIEW_VERDICT,
                new_id(),
                verdict.item_id,
                key,
                verdict.vote,
                list(verdict.reasons),
                verdict.comment,
            )
        return "recorded"

    async def record_command(self, vote: CastVote, chat_key: str, message: str) -> ChatVoteResult:
        async with self._pool.acquire() as conn:
            # A copy of the same command blocks on the claimed chat row until this commits,
            # then finds the claim taken and (by a fresh read) its own digest in it.
            async with conn.transaction():
                if await claim_command(conn, chat_key, vote.matchup_id, message):
                    return "recorded" if await insert_vote(conn, vote) else "voted"
            return await chat_state(conn, chat_key, vote.matchup_id, message)

    async def record_judgement(self, judgement: Judgement, vote: CastVote | None) -> bool:
        async with self._pool.acquire() as conn, conn.transaction():
            recorded = vote is not None and await insert_vote(conn, vote)
            await insert_verdict(conn, judgement, recorded)
        return recorded
