"""The WebSocket control plane against the real server: stop and steer rounds in flight."""

from __future__ import annotations

import asyncio
import json
import time
import uuid
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import websockets
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import Arena, serve_arena
from tests.support import parse_sse

SLOW = {"ARENA_MOCK_TOKENS_PER_SECOND": "20", "ARENA_MOCK_TOKENS": "400"}


async def _control(arena: Arena, *messages: Any) -> list[dict[str, Any]]:
    url = arena.url.replace("http://", "ws://") + "/api/arena/control"
    async with websockets.connect(url) as socket:
        replies = []
        for message in messages:
            await socket.send(message if isinstance(message, str | bytes) else json.dumps(message))
            replies.append(json.loads(await socket.recv()))
    return replies


class Reader:
    """Streams a chat response in the background, keeping its frames."""

    def __init__(self, arena: Arena, body: dict[str, Any]) -> None:
        self.text = ""
        self.started = asyncio.Event()
        self.task = asyncio.create_task(self._run(arena, body))

    async def _run(self, arena: Arena, body: dict[str, Any]) -> None:
        async with arena.client.stream("POST", "/api/arena/chat", json=body) as response:
            async for chunk in response.aiter_text():
                self.text += chunk
                if "event: token" in self.text:
                    self.started.set()

    @property
    def frames(self) -> list[tuple[str, dict[str, Any]]]:
        return parse_sse(self.text)


@dataclass
class Stopped:
    """A round ``runner`` streams, stopped through ``asker``'s control plane, and stopped again."""

    matchup: str
    reply: dict[str, Any]
    ended_after: float
    reader: Reader
    stored: list[Any]
    again: dict[str, Any]


async def stop_round(runner: Arena, asker: Arena) -> Stopped:
    reader = Reader(runner, {"prompt": "long answer please"})
    await reader.started.wait()
    matchup = reader.frames[0][1]["matchupId"]
    stopped_at = time.monotonic()

    reply = await _control(asker, {"type": "stop", "matchupId": matchup})
    await asyncio.wait_for(reader.task, timeout=5)
    ended_after = time.monotonic() - stopped_at
    for _ in range(40):
        if await runner.scalar("SELECT count(*) FROM responses") == 2:
            break
        await asyncio.sleep(0.05)
    stored = await runner.rows("SELECT content, error FROM responses")
    again = await _control(asker, {"type": "stop", "matchupId": matchup})
    return Stopped(matchup, reply[0], ended_after, reader, stored, again[0])


async def test_stop_ends_both_slots_promptly_and_keeps_what_was_produced(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **SLOW) as arena:
        stopped = await stop_round(arena, arena)
        running = arena.service.running_rounds

    assert stopped.reply == {"type": "stopped", "matchupId": stopped.matchup, "ok": True}
    assert stopped.ended_after < 2
    assert stopped.reader.frames[-1][0] == "matchup_done"
    assert [row.error for row in stopped.stored] == ["stopped", "stopped"]
    assert all(0 < len(row.content) for row in stopped.stored)
    assert stopped.again["ok"] is False and running == 0


async def test_stop_on_a_joined_matchup_stops_both_siblings(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **SLOW) as arena:
        body = {"prompt": "p", "sessionId": "s", "joinKey": "j"}
        readers = [Reader(arena, body), Reader(arena, body)]
        await asyncio.gather(*(r.started.wait() for r in readers))
        matchup = readers[0].frames[0][1]["matchupId"]

        reply = await _control(arena, {"type": "stop", "matchupId": matchup})
        await asyncio.wait_for(asyncio.gather(*(r.task for r in readers)), timeout=5)

    assert reply[0]["ok"] is True
    assert sorted(r.frames[0][1]["slots"][0] for r in readers) == ["A", "B"]
    assert all(r.frames[-1][0] == "matchup_done" for r in readers)


async def test_steer_restarts_both_slots_and_is_recorded(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "50", "ARENA_MOCK_TOKENS": "30"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        reader = Reader(arena, {"prompt": "explain"})
        await reader.started.wait()
        started = reader.frames[0][1]

        reply = await _control(
            arena,
            {
                "type": "steer",
                "matchupId": started["matchupId"],
                "instruction": "be concise",
                "matchupToken": started["matchupToken"],
            },
        )
        await asyncio.wait_for(reader.task, timeout=10)
        steers = await arena.scalar("SELECT steers FROM matchups")
        contents = await arena.rows("SELECT content, error FROM responses")

    names = [name for name, _ in reader.frames]
    assert reply == [{"type": "steer_ack", "matchupId": started["matchupId"], "accepted": True}]
    assert names.count("steered") == 1 and names[-1] == "matchup_done"
    after = names[names.index("steered") :]
    assert after.count("slot_done") == 2
    assert [s["instruction"] for s in steers] == ["be concise"] and steers[0]["at"]
    assert len(contents) == 2 and all(row.error is None for row in contents)


async def test_control_with_a_token_of_another_matchup_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, **SLOW) as arena:
        first, second = Reader(arena, {"prompt": "a"}), Reader(arena, {"prompt": "b"})
        await asyncio.gather(first.started.wait(), second.started.wait())
        target, foreign = first.frames[0][1], second.frames[0][1]

        replies = await _control(
            arena,
            {
                "type": "stop",
                "matchupId": target["matchupId"],
                "matchupToken": foreign["matchupToken"],
            },
            {
                "type": "steer",
                "matchupId": target["matchupId"],
                "instruction": "x",
                "matchupToken": "forged.token",
            },
        )
        for reader in (first, second):
            await _control(arena, {"type": "stop", "matchupId": reader.frames[0][1]["matchupId"]})
            await reader.task

    assert replies[0]["ok"] is False and "token" in replies[0]["reason"]
    assert replies[1]["accepted"] is False


async def test_control_after_completion_is_a_negative_ack(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        _, frames = await arena.chat()
        matchup = frames[0][1]["matchupId"]

        replies = await _control(
            arena,
            {"type": "stop", "matchupId": matchup},
            {"type": "steer", "matchupId": matchup, "instruction": "late"},
            {"type": "stop", "matchupId": str(uuid.uuid4())},
        )

    assert [r.get("ok", r.get("accepted")) for r in replies] == [False, False, False]
    assert all(r["reason"] for r in replies)


@pytest.mark.parametrize(
    ("frame", "message"),
    [
        pytest.param("{nope", "Invalid JSON control message", id="invalid-json"),
        pytest.param('{"type": "dance"}', "Unknown or malformed control message", id="unknown"),
        pytest.param(
            '{"type": "stop", "matchupId": "x"}',
            "Unknown or malformed control message",
            id="bad-uuid",
        ),
        pytest.param(
            json.dumps({"type": "steer", "matchupId": str(uuid.uuid4())}),
            "Unknown or malformed control message",
            id="steer-without-instruction",
        ),
        pytest.param("[1, 2]", "Unknown or malformed control message", id="not-an-object"),
        pytest.param("x" * 20_000, "Control message over 16384 characters", id="oversized"),
    ],
)
async def test_malformed_control_frames_get_an_error_frame(
    db: AsyncEngine, database_url: str, tmp_path: Path, frame: str, message: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        replies = await _control(arena, frame, {"type": "stop", "matchupId": str(uuid.uuid4())})

    assert replies[0] == {"type": "error", "message": message}
    assert replies[1]["type"] == "stopped"  # the socket is still usable


async def test_a_thousand_malformed_frames_do_not_disturb_a_healthy_round(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "100", "ARENA_MOCK_TOKENS": "100"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        reader = Reader(arena, {"prompt": "healthy"})
        junk = ["{", '{"type":"x"}', "[]", '{"type":"stop","matchupId":"bad"}', "x" * 17_000]

        replies = await _control(arena, *(junk[i % len(junk)] for i in range(1000)))
        await asyncio.wait_for(reader.task, timeout=20)

    assert len(replies) == 1000 and all(r["type"] == "error" for r in replies)
    assert reader.frames[-1][0] == "matchup_done"
    assert not any(name == "slot_error" for name, _ in reader.frames)


async def test_steer_on_a_joined_matchup_restarts_both_siblings(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "50", "ARENA_MOCK_TOKENS": "30"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        body = {"prompt": "p", "sessionId": "s", "joinKey": "steer-join"}
        readers = [Reader(arena, body), Reader(arena, body)]
        await asyncio.gather(*(r.started.wait() for r in readers))
        matchup = readers[0].frames[0][1]["matchupId"]

        reply = await _control(
            arena, {"type": "steer", "matchupId": matchup, "instruction": "shorter"}
        )
        await asyncio.wait_for(asyncio.gather(*(r.task for r in readers)), timeout=10)

    assert reply[0]["accepted"] is True
    for reader in readers:
        names = [name for name, _ in reader.frames]
        assert names.count("steered") == 1 and names[-1] == "matchup_done"
