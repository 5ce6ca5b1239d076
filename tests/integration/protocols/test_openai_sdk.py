"""OpenAI conformance against the ``openai`` Python SDK pointed at our ``/v1``."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any

import openai
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.integration.protocols._faults import (
    HEALTHY_TEXT,
    failing_vendor,
    responses_table_away,
)


def _client(arena: Arena, prefix: str = "/v1") -> openai.AsyncOpenAI:
    return openai.AsyncOpenAI(base_url=arena.url + prefix, api_key="sk-unused", max_retries=0)


async def _stream(
    client: openai.AsyncOpenAI, prompt: str, **extra: Any
) -> tuple[str, dict[str, Any]]:
    """Slot A's text (``choices[0]``, as positional readers take it) and the arena metadata."""
    text, metadata = "", dict[str, Any]()
    stream = await client.chat.completions.create(
        model="arena",
        messages=[{"role": "user", "content": prompt}],
        stream=True,
        extra_body=extra or None,
    )
    async for chunk in stream:
        metadata = (chunk.model_extra or {}).get("omni_arena") or metadata
        if chunk.choices and chunk.choices[0].delta.content:
            text += chunk.choices[0].delta.content
    return text, metadata


async def test_a_streamed_completion_yields_slot_a_and_continues_after_a_vote(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        client = _client(arena)
        text, metadata = await _stream(client, "Explain JWTs", user="sdk-user")
        answers = {
            r.slot: r.content for r in await arena.rows("SELECT slot, content FROM responses")
        }
        await arena.vote(metadata, "left")
        _, follow = await _stream(
            client,
            "Go deeper",
            user="sdk-user",
            omni_arena={"conversationId": metadata["conversationId"]},
        )
        owner = await arena.scalar("SELECT anonymous_session_id FROM conversations")

    assert text == answers["A"]
    assert metadata["votable"] is True and metadata["slots"] == ["A", "B"]
    assert follow["turnIndex"] == 1 and follow["conversationId"] == metadata["conversationId"]
    assert owner == "sdk-user"


async def test_the_model_list_and_a_model_can_be_read_with_the_sdk(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        client = _client(arena)
        listed = [model async for model in client.models.list()]
        one = await client.models.retrieve(listed[0].id)
        bare = await _client(arena, "").models.retrieve(listed[0].id)
        with pytest.raises(openai.NotFoundError):
            await client.models.retrieve("no-such-model")

    assert len(listed) == 4 and all(m.object == "model" for m in listed)
    assert one == listed[0] == bare


async def test_a_failed_slot_leaves_a_clean_stream_with_the_marked_text(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    with failing_vendor() as (roster, env):
        async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
            text, metadata = await _stream(_client(arena), "hi")

    assert metadata["matchupId"]
    assert text == HEALTHY_TEXT or text.startswith("\n\n[omni-arena:slot-error] ")


async def test_a_round_failing_mid_stream_raises_the_sdks_api_error(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with responses_table_away(db):
            with pytest.raises(openai.APIError) as raised:
                await asyncio.wait_for(_stream(_client(arena), "hi"), timeout=20)

    assert "The round failed" in str(raised.value)


async def test_stream_false_is_refused_with_a_400_naming_the_field(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        with pytest.raises(openai.BadRequestError) as raised:
            await _client(arena).chat.completions.create(
                model="arena", messages=[{"role": "user", "content": "hi"}], stream=False
            )

    assert raised.value.status_code == 400
    assert str(raised.value.body).startswith("stream: false is not supported")
