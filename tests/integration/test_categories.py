"""Prompts are classified when their round is stored (categories, language, key); the backfill
classifies the rounds stored before."""

from __future__ import annotations

from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.categories import prompt_key
from arena_api.db.categories import backfill_categories
from arena_api.db.repository import create_pool
from arena_api.language import detect_language
from tests.integration import rows
from tests.integration.arena_harness import serve_arena


async def test_a_round_stores_what_its_prompt_is_about(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, _ = await arena.chat(prompt="Write a Python function for Fibonacci numbers")
        follow, _ = await arena.chat(prompt="Write a haiku about rain in exactly three lines")
        german, _ = await arena.chat(prompt="Wie spät ist es gerade in Berlin?")
        stored = await arena.rows(
            "SELECT prompt, categories, language, prompt_key FROM matchups ORDER BY created_at"
        )

    assert response.status_code == follow.status_code == german.status_code == 200
    code, haiku, question = stored
    assert (code.categories, code.language) == (["coding"], "en")
    assert haiku.categories == ["creative_writing", "instruction_following"]
    assert haiku.language == "en" and haiku.prompt_key == prompt_key(haiku.prompt)
    assert (question.categories, question.language) == ([], "de")


async def test_the_backfill_classifies_old_rounds_once_in_batches(
    db: AsyncEngine, database_url: str
) -> None:
    prompts = ["What is 2 + 2?", "Tell me a story about a fox", "Wie spät ist es?"] * 3
    async with db.begin() as conn:
        a, b = await rows.model(conn, "a"), await rows.model(conn, "b")
        for prompt in prompts:
            await rows.matchup(conn, a, b, prompt=prompt)
    pool = await create_pool(database_url)
    batches: list[int] = []
    try:
        first = await backfill_categories(pool, detect_language, batch=4, progress=batches.append)
        again = await backfill_categories(pool, detect_language, batch=4)
    finally:
        await pool.close()
    async with db.connect() as conn:
        from sqlalchemy import text

        stored = (
            await conn.execute(text("SELECT prompt, categories, language FROM matchups"))
        ).all()

    assert first == 9 and batches == [4, 4, 1] and again == 0
    by_prompt = {r.prompt: (r.categories, r.language) for r in stored}
    assert by_prompt["What is 2 + 2?"][0] == ["math"]
    assert by_prompt["Tell me a story about a fox"] == (["creative_writing"], "en")
    assert by_prompt["Wie spät ist es?"] == ([], "de")
