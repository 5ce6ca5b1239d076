"""Classify the rounds stored before their prompts were classified (``arena db
backfill-categories``): categories, language and prompt key, in batches, resumable.

Each batch reads the next unclassified rounds through a partial index and writes them back in
one ``UPDATE ... FROM unnest(...)``; a batch commits on its own, so a backfill that is stopped
resumes where it stopped, and the server may keep serving meanwhile.
"""

from __future__ import annotations

from collections.abc import Callable

import asyncpg

from arena_api.core.categories import classify, prompt_key

__all__ = ["backfill_categories", "unclassified_rounds"]

_NEXT = """
SELECT m.id, m.prompt, coalesce(t.turn_index, 0) AS turn_index
  FROM matchups m LEFT JOIN turns t ON t.matchup_id = m.id
 WHERE m.categories IS NULL
 ORDER BY m.id
 LIMIT $1
"""

_WRITE = """
UPDATE matchups m
   SET categories = string_to_array(c.categories, ','), language = c.language,
       prompt_key = c.prompt_key
  FROM unnest($1::uuid[], $2::text[], $3::text[], $4::text[])
       AS c (id, categories, language, prompt_key)
 WHERE m.id = c.id
"""


async def unclassified_rounds(pool: asyncpg.Pool) -> int:
    async with pool.acquire() as conn:
        count: int = await conn.fetchval("SELECT count(*) FROM matchups WHERE categories IS NULL")
    return count


async def backfill_categories(
    pool: asyncpg.Pool,
    language: Callable[[str], str],
    *,
    batch: int = 5_000,
    progress: Callable[[int], None] | None = None,
) -> int:
    """Classify every unclassified round; the number classified. ``progress`` hears each
    batch's size."""
    done = 0
    while True:
        async with pool.acquire() as conn:
            rows = await conn.fetch(_NEXT, batch)
            if not rows:
                return done
            await conn.execute(
                _WRITE,
                [r["id"] for r in rows],
                [",".join(classify(r["prompt"], turn_index=r["turn_index"])) for r in rows],
                [language(r["prompt"]) for r in rows],
                [prompt_key(r["prompt"]) for r in rows],
            )
        done += len(rows)
        if progress is not None:
            progress(len(rows))
