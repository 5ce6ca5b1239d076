"""What each envelope may carry, and how a bad request is refused, through the real route."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import serve_arena
from tests.integration.protocols._wire import read_round

AUDIO = {"type": "input_audio", "input_audio": {"data": "AAAA", "format": "wav"}}


@pytest.mark.parametrize(
    ("url", "body", "field"),
    [
        pytest.param(
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "system", "content": "x"}]},
            "messages",
            id="openai-no-user-message",
        ),
        pytest.param(
            "/v1/chat/completions",
            {"model": "m", "messages": [{"role": "user", "content": [AUDIO]}]},
            "messages[0].content[0]",
            id="openai-audio",
        ),
        pytest.param(
            "/chat/completions",
            {"model": "m", "stream": False, "messages": [{"role": "user", "content": "hi"}]},
            "stream",
            id="openai-stream-false",
        ),
        pytest.param(
            "/v1/chat/completions",
            {
                "messages": [{"role": "user", "content": "hi"}],
                "omni_arena": {"conversationId": "x"},
            },
            "omni_arena.conversationId",
            id="openai-bad-extension",
        ),
        pytest.param(
            "/api/arena/chat?protocol=vercel",
            {
                "messages": [
                    {
                        "id": "u",
                        "role": "user",
                        "parts": [
                            {"type": "file", "mediaType": "application/pdf", "url": "data:,"}
                        ],
                    }
                ]
            },
            "messages[0].parts[0]",
            id="vercel-file-part",
        ),
        pytest.param(
            "/api/arena/chat?protocol=ai-sdk",
            {"messages": [{"id": "u", "role": "user", "content": "   "}]},
            "messages[0].content",
            id="vercel-v4-blank",
        ),
        pytest.param(
            "/api/arena/chat?protocol=sse",
            {"messages": [{"role": "user", "content": "hi"}]},
            "prompt",
            id="native-takes-no-envelope",
        ),
    ],
)
async def test_a_bad_envelope_is_a_400_naming_the_clients_field(
    db: AsyncEngine, database_url: str, tmp_path: Path, url: str, body: dict[str, Any], field: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(url, json=body)
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request" and field in response.json()["details"]
    assert stored == 0


@pytest.mark.parametrize(
    ("url", "body"),
    [
        pytest.param(
            "/api/arena/chat?protocol=OpenAI",
            {
                "model": "m",
                "messages": [
                    {"role": "user", "content": "old question"},
                    {"role": "assistant", "content": "old answer"},
                    {"role": "user", "content": [{"type": "text", "text": "newest"}]},
                ],
                "temperature": 0.2,
                "tools": [{"type": "function", "function": {"name": "f"}}],
            },
            id="openai-parts-history-ignored",
        ),
        pytest.param(
            "/api/arena/chat?protocol=VERCEL-AI",
            {
                "id": "chat",
                "trigger": "submit-message",
                "messages": [
                    {"id": "1", "role": "user", "parts": [{"type": "text", "text": "old"}]},
                    {"id": "2", "role": "assistant", "parts": [{"type": "text", "text": "a"}]},
                    {
                        "id": "3",
                        "role": "user",
                        "parts": [{"type": "step-start"}, {"type": "text", "text": "newest"}],
                    },
                ],
            },
            id="vercel-v5-parts",
        ),
        pytest.param(
            "/api/arena/chat?protocol=vercel",
            {"messages": [{"id": "1", "role": "user", "content": "newest"}]},
            id="vercel-v4-content",
        ),
    ],
)
async def test_only_the_newest_user_message_becomes_the_prompt(
    db: AsyncEngine, database_url: str, tmp_path: Path, url: str, body: dict[str, Any]
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(url, json=body)
        prompt = await arena.scalar("SELECT prompt FROM turns")

    assert response.status_code == 200 and prompt == "newest"


async def test_openai_user_seeds_the_session_unless_the_extension_names_one(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    message = [{"role": "user", "content": "hi"}]
    async with serve_arena(db, database_url, tmp_path) as arena:
        await arena.client.post("/v1/chat/completions", json={"messages": message, "user": "u-1"})
        await arena.client.post(
            "/v1/chat/completions",
            json={"messages": message, "user": "u-1", "arena": {"sessionId": "explicit"}},
        )
        owners = {r.anonymous_session_id for r in await arena.rows("SELECT * FROM conversations")}

    assert owners == {"u-1", "explicit"}


async def test_a_non_json_content_type_is_a_415(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/api/arena/chat", content=b'{"prompt": "hi"}', headers={"content-type": "text/plain"}
        )

    assert response.status_code == 415 and response.json()["code"] == "unsupported_media_type"


async def test_a_body_past_the_round_limit_is_a_413_on_every_chat_path(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    """A chat body may carry images: its limit is ARENA_MAX_BODY_BYTES plus room for
    ARENA_MAX_IMAGES images (none here)."""
    big = {"prompt": "x" * (1024 * 1024)}
    async with serve_arena(db, database_url, tmp_path, ARENA_MAX_IMAGES="0") as arena:
        statuses = [
            (await arena.client.post(url, json=big)).status_code
            for url in ("/api/arena/chat", "/v1/chat/completions", "/chat/completions")
        ]

    assert statuses == [413, 413, 413]


async def test_malformed_json_on_ag_ui_is_an_in_band_run_error(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/api/arena/chat?protocol=agui",
            content=b"{not json",
            headers={"content-type": "application/json"},
        )

    assert response.status_code == 200
    assert response.text.startswith('data: {"type":"RUN_ERROR","message":"Invalid JSON body')


@pytest.mark.parametrize(
    ("accept", "protocol"),
    [
        pytest.param(
            "text/html, application/xhtml+xml, application/xml;q=0.9, image/avif, image/webp, "
            "image/apng, */*;q=0.8, application/signed-exchange;v=b3;q=0.7, "
            "application/vnd.ag-ui+json;q=0.5, application/x-ndjson;q=0.6",
            "a2ui",
            id="ten-types-q-order",
        ),
        pytest.param("application/vnd.vercel.ai.ui-message-stream+json", "vercel-ai", id="vercel"),
        pytest.param("application/vnd.openai.chat-chunk+json;q=1", "openai", id="openai"),
        pytest.param("application/vnd.ag-ui+json;q=0, text/plain", "sse", id="refused-q0"),
        pytest.param(";;, ,q=x;;", "sse", id="garbage"),
    ],
)
async def test_accept_picks_the_first_supported_type_in_q_order_and_never_fails(
    db: AsyncEngine, database_url: str, tmp_path: Path, accept: str, protocol: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/api/arena/chat", json={"prompt": "hi"}, headers={"accept": accept}
        )

    assert response.status_code == 200 and read_round(protocol, response).terminal == "done"


async def test_an_unknown_protocol_falls_back_to_native_sse(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/api/arena/chat?protocol=carrier-pigeon", json={"prompt": "hi"}
        )

    assert response.text.startswith("event: matchup_started\n")


async def test_the_body_limit_is_the_configured_one(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(
        db, database_url, tmp_path, ARENA_MAX_BODY_BYTES="4096", ARENA_MAX_IMAGES="0"
    ) as arena:
        small = await arena.client.post("/api/arena/chat", json={"prompt": "x" * 3000})
        large = await arena.client.post("/api/arena/chat", json={"prompt": "x" * 5000})
        vote = await arena.client.post("/api/arena/vote", json={"pad": "x" * 5000})

    assert small.status_code == 200
    assert large.status_code == 413 and large.json()["code"] == "too_large"
    assert vote.status_code == 413
