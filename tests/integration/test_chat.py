"""POST /api/arena/chat over native SSE: the stream, its header, and what it persists."""

from __future__ import annotations

import asyncio
import hashlib
import json
from pathlib import Path

import httpx
import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import serve_arena
from tests.support import parse_sse


async def test_chat_streams_a_blind_matchup_in_order(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, frames = await arena.chat(sessionId="anon_1")

    names = [name for name, _ in frames]
    started = frames[0][1]
    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert names[0] == "matchup_started" and names[-1] == "matchup_done"
    assert started["slots"] == ["A", "B"] and started["mode"] == "matchup"
    assert started["votable"] is True and started["turnIndex"] == 0
    assert {"matchupId", "matchupToken", "conversationId"} <= started.keys()
    assert json.loads(response.headers["x-arena-matchup"]) == {
        k: v for k, v in started.items() if k != "type"
    }
    assert {d["slot"] for n, d in frames if n == "token"} == {"A", "B"}
    assert sorted(d["slot"] for n, d in frames if n == "slot_done") == ["A", "B"]
    assert all(d == {"type": "slot_done", "slot": d["slot"]} for n, d in frames if n == "slot_done")
    assert all(d["type"] == n for n, d in frames)


async def test_chat_persists_the_round_and_both_responses(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        _, frames = await arena.chat(sessionId="anon_1")
        started = frames[0][1]

        matchup = (await arena.rows("SELECT * FROM matchups"))[0]
        answers = await arena.rows("SELECT * FROM responses ORDER BY slot")
        turn = (await arena.rows("SELECT * FROM turns"))[0]
        owner = await arena.scalar("SELECT anonymous_session_id FROM conversations")

    assert str(matchup.id) == started["matchupId"]
    assert (
        matchup.matchup_token_hash == hashlib.sha256(started["matchupToken"].encode()).hexdigest()
    )
    assert (matchup.mode, matchup.harness_version, matchup.steers) == ("blind", "v1", [])
    assert matchup.slot_a_model_id != matchup.slot_b_model_id
    assert matchup.slot_a_provider_model_id.startswith("mock-")
    assert [a.slot for a in answers] == ["A", "B"]
    for answer in answers:
        assert answer.content and answer.error is None
        assert answer.output_token_count == 8 and answer.token_count_source == "provider"
        assert answer.ttft_ms is not None and answer.stream_duration_ms >= answer.ttft_ms
        assert 0 < answer.markdown_density <= 1 and answer.model_version
    assert (turn.turn_index, turn.parent_response_id, str(turn.conversation_id)) == (
        0,
        None,
        started["conversationId"],
    )
    assert owner == "anon_1"


async def test_a_client_that_disconnects_mid_stream_still_gets_both_answers_recorded(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(
        db, database_url, tmp_path, ARENA_MOCK_TOKENS_PER_SECOND="40", ARENA_MOCK_TOKENS="20"
    ) as arena:
        async with arena.client.stream(
            "POST", "/api/arena/chat", json={"prompt": "hi"}
        ) as response:
            async for line in response.aiter_lines():
                if line.startswith("event: token"):
                    break
        for _ in range(100):
            count = await arena.scalar("SELECT count(*) FROM responses")
            if count == 2:
                break
            await asyncio.sleep(0.1)

        contents = await arena.rows("SELECT content, error FROM responses")

    assert count == 2
    assert all(row.error is None and row.content for row in contents)


@pytest.mark.parametrize(
    ("body", "field"),
    [
        pytest.param({"prompt": ""}, "prompt", id="empty"),
        pytest.param({"prompt": "   "}, "prompt", id="blank"),
        pytest.param({"prompt": "x" * 20_001}, "prompt", id="too-long"),
        pytest.param({"prompt": 42}, "prompt", id="not-a-string"),
        pytest.param({}, "prompt", id="missing"),
        pytest.param({"prompt": "hi", "sessionId": ""}, "sessionId", id="empty-session"),
        pytest.param({"prompt": "hi", "conversationId": "nope"}, "conversationId", id="bad-id"),
    ],
)
async def test_invalid_body_is_a_400_with_field_details_and_stores_nothing(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: dict[str, object], field: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post("/api/arena/chat", json=body)
        stored = await arena.scalar("SELECT count(*) FROM matchups")

    assert response.status_code == 400
    assert response.json()["code"] == "invalid_request"
    assert field in response.json()["details"]
    assert stored == 0


async def test_prompt_of_exactly_twenty_thousand_characters_is_accepted(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, frames = await arena.chat(prompt="y" * 20_000)

    assert response.status_code == 200 and frames[-1][0] == "matchup_done"


async def test_malformed_json_is_a_400(db: AsyncEngine, database_url: str, tmp_path: Path) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(
            "/api/arena/chat", content=b"{not json", headers={"content-type": "application/json"}
        )

    assert response.status_code == 400 and response.json()["code"] == "invalid_request"


async def test_unknown_members_of_the_body_are_ignored(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response, frames = await arena.chat(prompt="hi", clientField={"x": 1})

    assert response.status_code == 200 and frames[0][0] == "matchup_started"


async def test_concurrent_rounds_stream_independently(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        results = await asyncio.gather(*(arena.chat(prompt=f"q{i}") for i in range(20)))
        stored = await arena.scalar("SELECT count(*) FROM responses")

    assert all(r.status_code == 200 and f[-1][0] == "matchup_done" for r, f in results)
    assert len({f[0][1]["matchupId"] for _, f in results}) == 20
    assert stored == 40


async def test_models_lists_the_enabled_roster_in_openai_shape(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_OPENAI_MODELS="roster") as arena:
        plain = (await arena.client.get("/models")).json()
        versioned = (await arena.client.get("/v1/models")).json()

    assert plain == versioned
    assert plain["object"] == "list" and len(plain["data"]) == 4
    first = plain["data"][0]
    assert first["object"] == "model" and first["owned_by"] == "mock"
    assert isinstance(first["created"], int) and first["name"].startswith("Mock ")


async def test_raw_stream_is_framed_as_event_and_data_pairs(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with httpx.AsyncClient(base_url=arena.url) as client:
            response = await client.post("/api/arena/chat", json={"prompt": "hi"})

    blocks = [b for b in response.text.replace("\r\n", "\n").split("\n\n") if b.strip()]
    assert blocks[0].startswith("event: matchup_started\ndata: {")
    assert len(parse_sse(response.text)) == len([b for b in blocks if not b.startswith(":")])
