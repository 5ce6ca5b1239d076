"""Forget a voter's session (``arena db forget-session``): their text goes, their votes stay.

A person who asks to be forgotten is known to us only by the session id their browser or chat
client sent. Their prompts, the answers to them and any judge's reading of those (everything in
``arena_api.db._text``) are cleared in every round of the session: the rounds of its
conversations and the rounds it voted on. The images of those rounds' turns are taken off them,
and each image no other turn shows is deleted; one that another session's turn shows too stays
for that turn. Their votes stay, since the ratings and the summaries rest on them, but the
session id on them and on the conversations is replaced by a new random one, the same for the
whole session, so that the anomaly screen still sees one session, while nothing left in the
database leads back to the id they knew. An external chat's link to the session
(``external_chats``) is removed. Earlier exports are not reachable from here: they name a
session only by a salted hash, which now matches nothing stored.

The whole change is one transaction. Summaries need no recount (``arena_api.db._text``).
"""

from __future__ import annotations

import secrets
import uuid
from collections.abc import Sequence
from dataclasses import dataclass

import asyncpg

from arena_api.db._text import TEXTS, ClearedText, TextColumns
from arena_api.db.media import DetachedImages, detach_images

__all__ = ["FORGOTTEN_PREFIX", "ClearedText", "ForgottenSession", "forget_session"]

#: What the new session ids start with, so that a forgotten session is recognisable as one.
FORGOTTEN_PREFIX = "forgotten-"

_ROUNDS = """
SELECT t.matchup_id FROM turns t JOIN conversations c ON c.id = t.conversation_id
 WHERE c.anonymous_session_id = $1
UNION
SELECT matchup_id FROM preferences WHERE anonymous_session_id = $1
UNION
SELECT matchup_id FROM external_chats WHERE session_id = $1
"""


@dataclass(frozen=True)
class ForgottenSession:
    """What forgetting a session changed."""

    #: votes and conversations now under the new session id
    votes: int
    conversations: int
    #: the session's rounds (of its conversations, or voted on by it)
    rounds: int
    text: ClearedText
    #: external chats' links to the session, removed
    chat_links: int

    @property
    def found(self) -> bool:
        return bool(self.votes or self.conversations or self.rounds or self.chat_links)


async def forget_session(conn: asyncpg.Connection, session_id: str) -> ForgottenSession:
    """Clear the text of ``session_id``'s rounds and give its votes a new, unrelated session id.

    Args:
        conn: a connection to a migrated database (its own transaction is used).
        session_id: the id as the client sent it (``sessionId``).

    Returns:
        The counts; all zero (``found`` false) for a session the database does not know.
    """
    alias = FORGOTTEN_PREFIX + secrets.token_hex(12)
    async with conn.transaction():
        rounds = [r[0] for r in await conn.fetch(_ROUNDS, session_id)]
        cleared: dict[str, int] = {}
        images = DetachedImages()
        for texts in TEXTS:
            cleared[texts.table], detached = await _clear(conn, texts, rounds)
            images += detached
        if rounds:
            # the prompt's hash names it to anyone who can guess the prompt; the rating
            # process's note of a vote left out as a duplicate prompt quotes that hash
            await conn.execute(
                "UPDATE matchups SET prompt_key = NULL WHERE id = ANY($1::uuid[])", rounds
            )
            await conn.execute(
                "UPDATE vote_exclusions x SET detail = NULL FROM preferences p "
                "WHERE p.id = x.preference_id AND p.matchup_id = ANY($1::uuid[]) "
                "AND x.reason = 'duplicate_prompt'",
                rounds,
            )
        votes = _count(
            await conn.execute(
                "UPDATE preferences SET anonymous_session_id = $2 WHERE anonymous_session_id = $1",
                session_id,
                alias,
            )
        )
        conversations = _count(
            await conn.execute(
                "UPDATE conversations SET anonymous_session_id = $2 "
                "WHERE anonymous_session_id = $1",
                session_id,
                alias,
            )
        )
        links = _count(
            await conn.execute("DELETE FROM external_chats WHERE session_id = $1", session_id)
        )
    return ForgottenSession(
        votes, conversations, len(rounds), ClearedText.of(cleared, images), links
    )


async def _clear(
    conn: asyncpg.Connection, texts: TextColumns, rounds: Sequence[uuid.UUID]
) -> tuple[int, DetachedImages]:
    """Clear ``texts`` in the rows of ``rounds``, and take away those rows' images."""
    statement = (
        f"UPDATE {texts.table} SET {texts.blank} "
        f"WHERE {texts.round_column} = ANY($1::uuid[]) AND {texts.has_text}"
    )
    if not texts.has_images:
        return _count(await conn.execute(statement, rounds)), DetachedImages()
    ids = [r[0] for r in await conn.fetch(statement + " RETURNING id", rounds)]
    return len(ids), await detach_images(conn, ids)


def _count(status: str) -> int:
    """The row count of a command status (``UPDATE 3``)."""
    return int(status.rsplit(" ", 1)[-1])
