"""Every vote as one flat row, streamed from PostgreSQL through a server-side cursor.

Memory stays bounded whatever the number of votes: rows arrive ``batch`` at a time and are
handed on before the next batch is read. Rows are in vote order (``created_at``, then id).

Every row says how many images its round's prompt had (``image_count``, kept when text
retention clears them); with the images (``IMAGE_COLUMNS``), it names them too: the SHA-256 of
each image of the round's turn, in the order the person attached them.
"""

from __future__ import annotations

import hashlib
import hmac
from collections.abc import AsyncGenerator
from datetime import datetime
from typing import Any

import asyncpg

from arena_api.core.sides import sql_winner_slot

__all__ = [
    "EXPORT_COLUMNS",
    "IMAGE_COLUMNS",
    "TEXT_COLUMNS",
    "PostgresVoteRows",
    "anonymise_session",
    "count_votes",
    "stream_votes",
]

#: The columns of a row, in order (``TEXT_COLUMNS`` only with the prompts and answers,
#: ``IMAGE_COLUMNS`` only with the images).
EXPORT_COLUMNS = (
    "vote_id",
    "matchup_id",
    "voted_at",
    "outcome",
    "winner_slot",
    "mode",
    "method",
    "reasons",
    "categories",
    "language",
    "image_count",
    "model_a_id",
    "model_a",
    "model_b_id",
    "model_b",
    "session",
    "user",
    "a_output_tokens",
    "b_output_tokens",
    "a_markdown_density",
    "b_markdown_density",
    "a_ttft_ms",
    "b_ttft_ms",
    "a_duration_ms",
    "b_duration_ms",
    "a_failed",
    "b_failed",
)
TEXT_COLUMNS = ("prompt", "answer_a", "answer_b")
#: The SHA-256s of the round's images, in order (their files: ``arena export --include-images``).
IMAGE_COLUMNS = ("images",)

_WHERE = """
 WHERE ($1::timestamptz IS NULL OR p.created_at >= $1)
   AND ($2::timestamptz IS NULL OR p.created_at < $2)
"""

# One vote row: ``p`` is the vote (a ``preferences`` row, or a reviewer's verdict shaped as one).
_ROW = """
SELECT p.id AS vote_id, m.id AS matchup_id, p.created_at AS voted_at, p.vote AS outcome,
       {winner_slot} AS winner_slot,
       m.mode, p.method, p.reasons, m.categories, m.language, m.image_count,
       ma.id AS model_a_id, ma.display_name AS model_a,
       mb.id AS model_b_id, mb.display_name AS model_b,
       p.anonymous_session_id AS session, p.user_id::text AS "user",
       ra.output_token_count AS a_output_tokens, rb.output_token_count AS b_output_tokens,
       ra.markdown_density AS a_markdown_density, rb.markdown_density AS b_markdown_density,
       ra.ttft_ms AS a_ttft_ms, rb.ttft_ms AS b_ttft_ms,
       ra.stream_duration_ms AS a_duration_ms, rb.stream_duration_ms AS b_duration_ms,
       ra.error IS NOT NULL AS a_failed, rb.error IS NOT NULL AS b_failed
       {{text}}{{images}}
  FROM {votes}
  JOIN models ma ON ma.id = m.slot_a_model_id
  JOIN models mb ON mb.id = m.slot_b_model_id
  LEFT JOIN responses ra ON ra.matchup_id = m.id AND ra.slot = 'A'
  LEFT JOIN responses rb ON rb.matchup_id = m.id AND rb.slot = 'B'
{where}
"""
_PEOPLE = "preferences p JOIN matchups m ON m.id = p.matchup_id"
# The expert reviewers' verdicts (review queues), method ``reviewer``, the reviewer as the user.
_REVIEWERS = """(SELECT v.id, i.matchup_id, v.created_at, v.vote, v.reasons,
        'reviewer'::text AS method, NULL::text AS anonymous_session_id,
        v.reviewer_id AS user_id
   FROM review_verdicts v JOIN review_items i ON i.id = v.item_id) p
  JOIN matchups m ON m.id = p.matchup_id"""
_ROWS = (
    _ROW.format(winner_slot=sql_winner_slot("p.vote"), votes=_PEOPLE, where=_WHERE)
    + " UNION ALL "
    + _ROW.format(winner_slot=sql_winner_slot("p.vote"), votes=_REVIEWERS, where=_WHERE)
    + " ORDER BY voted_at, vote_id"
)
_TEXT = ", m.prompt, ra.content AS answer_a, rb.content AS answer_b"
_IMAGES = """,
       ARRAY(SELECT ti.sha256 FROM turns t JOIN turn_images ti ON ti.turn_id = t.id
              WHERE t.matchup_id = m.id ORDER BY ti.position) AS images"""


async def count_votes(pool: asyncpg.Pool, since: datetime | None, until: datetime | None) -> int:
    """The rows an export of ``[since, until)`` writes: votes and reviewers' verdicts."""
    async with pool.acquire() as conn:
        count: int = await conn.fetchval(
            f"SELECT (SELECT count(*) FROM preferences p {_WHERE})"
            f" + (SELECT count(*) FROM review_verdicts p {_WHERE})",
            since,
            until,
        )
    return count


def anonymise_session(salt: bytes, session: str | None) -> str | None:
    """A session as a salted hash: the same session is one name across the export, and no
    one without the salt can tell which session it was."""
    if session is None:
        return None
    return hmac.new(salt, session.encode(), hashlib.sha256).hexdigest()[:24]


async def stream_votes(
    pool: asyncpg.Pool,
    *,
    since: datetime | None,
    until: datetime | None,
    include_text: bool,
    salt: bytes,
    include_images: bool = False,
    batch: int = 5_000,
) -> AsyncGenerator[list[dict[str, Any]], None]:
    """The votes cast in ``[since, until)``, ``batch`` rows at a time."""
    query = _ROWS.format(
        text=_TEXT if include_text else "", images=_IMAGES if include_images else ""
    )
    async with pool.acquire() as conn, conn.transaction(readonly=True):
        rows: list[dict[str, Any]] = []
        async for record in conn.cursor(query, since, until, prefetch=batch):
            row = dict(record)
            row["session"] = anonymise_session(salt, row["session"])
            row["user"] = anonymise_session(salt, row["user"] and f"user:{row['user']}")
            rows.append(row)
            if len(rows) >= batch:
                yield rows
                rows = []
        if rows:
            yield rows


class PostgresVoteRows:
    """The vote rows of ``VoteExport`` (its ``VoteRows`` port), sessions hashed with ``salt``."""

    def __init__(self, pool: asyncpg.Pool, salt: bytes) -> None:
        self._pool = pool
        self._salt = salt

    def columns(self, *, include_text: bool, include_images: bool = False) -> tuple[str, ...]:
        """The columns of a row, in order."""
        return (
            *EXPORT_COLUMNS,
            *(TEXT_COLUMNS if include_text else ()),
            *(IMAGE_COLUMNS if include_images else ()),
        )

    async def count(self, since: datetime | None, until: datetime | None) -> int:
        return await count_votes(self._pool, since, until)

    def batches(
        self,
        since: datetime | None,
        until: datetime | None,
        *,
        include_text: bool,
        include_images: bool = False,
    ) -> AsyncGenerator[list[dict[str, Any]], None]:
        return stream_votes(
            self._pool,
            since=since,
            until=until,
            include_text=include_text,
            include_images=include_images,
            salt=self._salt,
        )
