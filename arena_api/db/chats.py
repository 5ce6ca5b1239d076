"""PostgreSQL implementation of ``ChatLinks``: where each external chat stands in the arena."""

from __future__ import annotations

import uuid

import asyncpg

from arena_api.core.ports import ChatLink, ChatVoteResult
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresChatLinks", "chat_state", "claim_command"]

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

_CLAIM = """
UPDATE external_chats SET vote_message = $3, updated_at = now()
WHERE chat_key = $1 AND matchup_id = $2 AND vote_message IS NULL
RETURNING matchup_id
"""


async def claim_command(
    conn: asyncpg.Connection, chat_key: str, matchup_id: uuid.UUID, message: str
) -> bool:
    """Claim the chat's vote on ``matchup_id`` for the command digested as ``message`` (in the
    caller's transaction, with the vote); False when it was claimed or the chat moved on."""
    return await conn.fetchval(_CLAIM, chat_key, matchup_id, message) is not None


async def chat_state(
    conn: asyncpg.Connection, chat_key: str, matchup_id: uuid.UUID, message: str
) -> ChatVoteResult:
    """Why a command could not claim the chat's vote (a fresh read): the chat moved on to
    another matchup, a copy of the same command claimed it, or another command did."""
    now = await conn.fetchrow(_GET, chat_key)
    if now is None or now["matchup_id"] != matchup_id:
        return "moved"
    return "sibling" if now["vote_message"] == message else "voted"


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
