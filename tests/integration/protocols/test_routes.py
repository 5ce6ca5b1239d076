"""Every registered protocol through the real HTTP route: cases generated from the registry."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.protocols import PROTOCOLS
from tests.integration.arena_harness import serve_arena
from tests.integration.protocols._faults import (
    HEALTHY_TEXT,
    failing_vendor,
    responses_table_away,
)
from tests.integration.protocols._wire import MARKER, envelope, read_round

NAMES = [protocol.name for protocol in PROTOCOLS]
MEDIA_TYPES = {"a2ui": "application/x-ndjson", "a2ui-v0.9": "application/x-ndjson"}
FOREIGN = {"ag-ui", "vercel-ai", "openai"}
CARRIES_CODE = {"sse", "ag-ui", "a2ui", "openai"}


def _url(protocol: str) -> str:
    return f"/api/arena/chat?protocol={protocol}"


@pytest.mark.parametrize("protocol", NAMES)
async def test_a_round_and_its_follow_up_stream_in_every_protocol(
    db: AsyncEngine, database_url: str, tmp_path: Path, protocol: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await arena.client.post(
            _url(protocol), json=envelope(protocol, "Explain JWTs", sessionId="proto-session")
        )
        turn0 = read_round(protocol, first)
        voted = await arena.vote(turn0.metadata, "left")
        second = await arena.client.post(
            _url(protocol),
            json=envelope(
                protocol,
                "Go deeper",
                sessionId="proto-session",
                conversationId=turn0.metadata["conversationId"],
            ),
        )
        turn1 = read_round(protocol, second)
        prompts = [
            r.prompt for r in await arena.rows("SELECT prompt FROM turns ORDER BY turn_index")
        ]

    assert first.status_code == 200 and second.status_code == 200
    assert first.headers["content-type"].startswith(MEDIA_TYPES.get(protocol, "text/event-stream"))
    assert json.loads(first.headers["x-arena-matchup"]) == turn0.metadata
    assert turn0.metadata["slots"] == ["A", "B"] and turn0.metadata["votable"] is True
    assert set(turn0.texts) == {"A", "B"} and all(t.startswith("[#") for t in turn0.texts.values())
    assert turn0.finished == {"A", "B"} and turn0.terminal == "done"
    assert voted.status_code == 200
    assert turn1.metadata["turnIndex"] == 1 and turn1.terminal == "done"
    assert turn1.metadata["conversationId"] == turn0.metadata["conversationId"]
    assert prompts == ["Explain JWTs", "Go deeper"]


@pytest.mark.parametrize("protocol", NAMES)
async def test_a_failed_slot_is_reported_and_the_other_slot_completes(
    db: AsyncEngine, database_url: str, tmp_path: Path, protocol: str
) -> None:
    with failing_vendor() as (roster, env):
        async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
            response = await arena.client.post(_url(protocol), json=envelope(protocol, "hi"))
            round_ = read_round(protocol, response)

    (failed,) = round_.slot_errors
    healthy = "B" if failed == "A" else "A"
    assert response.status_code == 200 and round_.terminal == "done"
    assert round_.texts.get(healthy) == HEALTHY_TEXT
    assert "flaky" not in round_.slot_errors[failed].lower()
    if protocol != "a2ui-v0.9":  # its data model holds the message alone
        assert round_.slot_error_codes == {failed: "provider_unavailable"}
    if protocol in ("ag-ui", "openai"):  # text-only protocols also carry the marked text
        assert MARKER in response.text


@pytest.mark.parametrize("protocol", NAMES)
async def test_a_round_that_fails_after_streaming_began_ends_in_the_protocols_error_idiom(
    db: AsyncEngine, database_url: str, tmp_path: Path, protocol: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with responses_table_away(db):
            response = await arena.client.post(_url(protocol), json=envelope(protocol, "hi"))
        round_ = read_round(protocol, response)

    assert response.status_code == 200
    assert round_.metadata["matchupId"] and round_.terminal == "error"
    if protocol in CARRIES_CODE:  # AI SDK's error is text only; A2UI v0.9's is a status
        assert "stream_failed" in json.dumps(round_.error)


@pytest.mark.parametrize("protocol", sorted(FOREIGN))
async def test_the_arena_body_keeps_working_on_protocols_with_an_envelope(
    db: AsyncEngine, database_url: str, tmp_path: Path, protocol: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(_url(protocol), json={"prompt": "hi", "messages": []})
        round_ = read_round(protocol, response)
        prompt = await arena.scalar("SELECT prompt FROM turns")

    assert response.status_code == 200 and round_.terminal == "done" and prompt == "hi"
