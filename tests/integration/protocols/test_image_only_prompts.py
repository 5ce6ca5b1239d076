"""An image alone asks too: a prompt with images may have no words, on every ingress; without
images an empty prompt is still refused. The same words about another picture are another
prompt (its key holds the images), so the duplicate-prompt filter never merges them."""

from __future__ import annotations

import json
from pathlib import Path

from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._images import SEEN, b64, data_url, png
from tests.integration.protocols._wire import data_lines, read_round


async def _prompts(arena: Arena) -> list[tuple[str, str, int]]:
    rows = await arena.rows("SELECT prompt, prompt_key, image_count FROM matchups ORDER BY id")
    return [(r.prompt, r.prompt_key, r.image_count) for r in rows]


async def test_an_image_without_words_is_a_prompt_on_every_ingress(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    image = png()
    async with serve_arena(db, database_url, tmp_path) as arena:
        native, events = await arena.chat(prompt="", images=[{"data": b64(image)}])
        openai = await arena.client.post(
            "/v1/chat/completions",
            json={
                "model": "arena",
                "stream": True,
                "messages": [
                    {
                        "role": "user",
                        "content": [{"type": "image_url", "image_url": {"url": data_url(image)}}],
                    }
                ],
            },
        )
        vercel = await arena.client.post(
            "/api/arena/chat?protocol=vercel-ai",
            json={
                "id": "chat-1",
                "trigger": "submit-message",
                "messages": [
                    {
                        "id": "m1",
                        "role": "user",
                        "parts": [
                            {"type": "file", "mediaType": "image/png", "url": data_url(image)}
                        ],
                    }
                ],
            },
        )
        empty, _ = await arena.chat(prompt="  ")
        stored = await _prompts(arena)

    tokens = "".join(data.get("token", "") for name, data in events if name == "token")
    assert native.status_code == 200 and SEEN in tokens
    chunks = [json.loads(line) for line in data_lines(openai.text) if line != "[DONE]"]
    answers = [
        "".join(c["choices"][i]["delta"].get("content") or "" for c in chunks) for i in (0, 1)
    ]
    assert openai.status_code == 200 and all(SEEN in a for a in answers), answers
    round_ = read_round("vercel-ai", vercel)
    assert round_.terminal == "done" and all(SEEN in t for t in round_.texts.values())
    assert empty.status_code == 400 and list(empty.json()["details"]) == ["prompt"]
    assert [(p, n) for p, _, n in stored] == [("", 1)] * 3


async def test_the_same_words_about_another_picture_are_another_prompt(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        for image in (png((64, 48)), png((32, 32)), png((64, 48))):
            response, _ = await arena.chat(prompt="What is this?", images=[{"data": b64(image)}])
            assert response.status_code == 200
        plain, _ = await arena.chat(prompt="What is this?")
        stored = await _prompts(arena)

    keys = [key for _, key, _ in stored]
    assert plain.status_code == 200
    assert len(set(keys)) == 3  # two pictures, and the words alone
    assert keys.count(keys[0]) == 2 or keys.count(keys[1]) == 2
