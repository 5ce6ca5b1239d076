"""PostgreSQL implementation of ``ChatLinks``: where each external chat stands in the arena."""

from __future__ import annotations

import json

import asyncpg

from arena_api.core.ids import new_id
from arena_api.core.ports import ChatLink, ChatVoteResult
from arena_api.core.records import Vote, VoteOutcome
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresChatLinks"]

_GET = """
SELECT chat_key, session_id, matchup_id, conversation_id, vote_message
FROM external_chats WHERE chat_key = $1
"""

_LINK = """
INSERT INTO external_chats (chat_key, session_id, matchup_id, conversation_id)
VALUES ($1, $2, $3, $4)
ON CONFLICT (chat_key) DO UPDATE
SET session_id = EXCLUDED.session_id, matchup_id = EXCLUDED.matchup_id,
    conversation_id = EXCLUDED.conversation_id, vote_message = NULL, updated_at = now()
"""

# One statement, so one transaction: the chat row is claimed for this command and the vote
# inserted together. A sibling copy of the command blocks on the claimed row until this commits,
# then finds the claim taken and (by a fresh read) its own digest in it.
_VOTE = """
WITH claim AS (
  UPDATE external_chats SET vote_message = $3, updated_at = now()
  WHERE chat_key = $1 AND matchup_id = $2 AND vote_message IS NULL
  RETURNING matchup_id
), vote AS (
  INSERT INTO preferences (id, matchup_id, vote, winner_model_id, anonymous_session_id,
                           position_bias_meta)
  SELECT $4, matchup_id, $5, $6, $7, $8::jsonb FROM claim
  ON CONFLICT (matchup_id) DO NOTHING
  RETURNING id
)
SELECT EXISTS (SELECT 1 FROM claim) AS claimed, EXISTS (SELECT 1 FROM vote) AS voted
"""


@raises_unavailable
class PostgresChatLinks:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def get(self, chat_key: str) -> ChatLink | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_GET, chat_key)
        return None if row is None else ChatLink(**dict(row))

    async def link(self, link: ChatLink) -> None:
        async with self._pool.acquire() as conn:
            await conn.execute(
                _LINK, link.chat_key, link.session_id, link.matchup_id, link.conversation_id
            )

    async def record_vote(
        self, link: ChatLink, message: str, vote: Vote, outcome: VoteOutcome
    ) -> ChatVoteResult:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(
                _VOTE,
                link.chat_key,
                link.matchup_id,
                message,
                new_id(),
                vote,
                outcome.winner_model_id,
                link.session_id,
                json.dumps({"selectedSlot": outcome.selected_slot}),
            )
            if row["claimed"]:
                return "recorded" if row["voted"] else "voted"
            now = await conn.fetchrow(_GET, link.chat_key)
        if now is None or now["matchup_id"] != link.matchup_id:
            return "moved"
        return "sibling" if now["vote_message"] == message else "voted"
