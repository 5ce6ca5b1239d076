"""Slot join through the real server: two sibling requests, one matchup, one vote."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.integration.arena_harness import Arena, roster_of, serve_arena
from tests.support import ServerThread, free_port, parse_sse

Frames = list[tuple[str, dict[str, Any]]]


def _body(join_key: str, session: str = "s-1", **extra: Any) -> dict[str, Any]:
    return {"prompt": "Compare these", "sessionId": session, "joinKey": join_key, **extra}


async def _post(arena: Arena, body: dict[str, Any]) -> tuple[int, Frames, dict[str, Any]]:
    response = await arena.client.post("/api/arena/chat", json=body)
    if response.status_code != 200:
        return response.status_code, [], response.json()
    return 200, parse_sse(response.text), {}


async def _until(condition: Callable[[], bool], what: str, timeout_s: float = 10.0) -> None:
    """Wait until ``condition`` holds: polled, so no pause guesses how long the server takes."""
    deadline = time.monotonic() + timeout_s
    while not condition():
        assert time.monotonic() < deadline, f"timed out waiting until {what}"
        await asyncio.sleep(0.01)


def _slots_seen(frames: Frames) -> set[str]:
    return {d["slot"] for n, d in frames if n in ("token", "slot_done", "slot_error")}


async def test_two_siblings_fired_together_share_one_matchup_every_time(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        pairs = []
        for batch in range(10):
            keys = [f"join-{batch}-{i}" for i in range(20)]
            pairs += await asyncio.gather(
                *(asyncio.gather(_post(arena, _body(k)), _post(arena, _body(k))) for k in keys)
            )
        matchups = await arena.scalar("SELECT count(*) FROM matchups")
        responses = await arena.scalar("SELECT count(*) FROM responses")
        first = pairs[0]
        follower = next(f for _, f, _ in first if f[0][1]["slots"] == ["B"])
        vote = await arena.vote(follower[0][1], "right")
        again = await arena.vote(next(f for _, f, _ in first if f[0][1]["slots"] == ["A"])[0][1])

    assert len(pairs) == 200 and matchups == 200 and responses == 400
    for (status_1, frames_1, _), (status_2, frames_2, _) in pairs:
        assert (status_1, status_2) == (200, 200)
        started_1, started_2 = frames_1[0][1], frames_2[0][1]
        assert sorted([started_1["slots"], started_2["slots"]]) == [["A"], ["B"]]
        for key in ("matchupId", "matchupToken", "conversationId", "turnIndex"):
            assert started_1[key] == started_2[key]
        for frames, started in ((frames_1, started_1), (frames_2, started_2)):
            assert _slots_seen(frames) == set(started["slots"])
            assert frames[-1][0] == "matchup_done"
    assert vote.status_code == 200 and again.status_code == 409


async def test_without_a_sibling_the_round_degrades_to_both_slots_on_one_connection(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_JOIN_WINDOW_MS="150") as arena:
        status, frames, _ = await _post(arena, _body("alone"))
        late_status, _, late_error = await _post(arena, _body("alone"))

    assert status == 200 and frames[0][1]["slots"] == ["A", "B"] and frames[0][1]["votable"]
    assert _slots_seen(frames) == {"A", "B"}
    assert (late_status, late_error["code"]) == (409, "join_expired")


async def test_a_third_request_on_one_scope_is_refused(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        results = await asyncio.gather(*(_post(arena, _body("crowd")) for _ in range(3)))

    statuses = sorted(status for status, _, _ in results)
    refused = [error for status, _, error in results if status != 200]
    assert statuses == [200, 200, 409] and refused[0]["code"] == "join_slots_exhausted"


async def test_join_key_without_a_session_is_a_400(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post("/api/arena/chat", json={"prompt": "hi", "joinKey": "k"})

    assert response.status_code == 400 and response.json()["code"] == "join_requires_session"


async def test_window_zero_ignores_the_join_key(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path, ARENA_JOIN_WINDOW_MS="0") as arena:
        results = await asyncio.gather(_post(arena, _body("k")), _post(arena, _body("k")))
        matchups = await arena.scalar("SELECT count(*) FROM matchups")

    assert all(frames[0][1]["slots"] == ["A", "B"] for _, frames, _ in results)
    assert matchups == 2


async def test_pending_cap_refuses_new_unpaired_scopes(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    env = {"ARENA_JOIN_MAX_PENDING": "1", "ARENA_JOIN_WINDOW_MS": "1500"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        waiting = asyncio.create_task(_post(arena, _body("first")))
        # The first request leads (it waits for its sibling) before the second is sent.
        await _until(lambda: arena.service.join_broker.waiting == 1, "the first request waits")
        status, _, error = await _post(arena, _body("second"))
        await waiting

    assert (status, error["code"]) == (503, "join_unavailable")


async def leave_one(first: Arena, second: Arena, who: str) -> None:
    """Siblings on ``first`` and ``second``, fired together; the one whose role is ``who`` (the
    leader streams slot A: no slot was asked for) hangs up after its first token. The other one
    still ends its stream, and both answers are stored."""
    leaving = asyncio.Event()
    staying: list[Frames] = []

    async def sibling(arena: Arena) -> None:
        async with arena.client.stream("POST", "/api/arena/chat", json=_body("k")) as r:
            text = ""
            async for chunk in r.aiter_text():
                text += chunk
                frames = parse_sse(text.replace("\r\n", "\n").rpartition("\n\n")[0])
                leads = bool(frames) and frames[0][1]["slots"] == ["A"]
                if (leads == (who == "leader")) and "event: token" in text:
                    leaving.set()
                    return
            staying.append(parse_sse(text))

    await asyncio.gather(sibling(first), sibling(second))
    for _ in range(100):
        if await first.scalar("SELECT count(*) FROM responses") == 2:
            break
        await asyncio.sleep(0.05)
    stored = await first.rows("SELECT slot, content, error FROM responses ORDER BY slot")

    assert leaving.is_set()
    assert staying[0][-1][0] == "matchup_done"
    assert [(r.slot, r.error) for r in stored] == [("A", None), ("B", None)]
    assert all(r.content for r in stored)


@pytest.mark.parametrize("who", ["leader", "follower"])
async def test_one_sibling_disconnecting_leaves_the_other_and_the_record_intact(
    db: AsyncEngine, database_url: str, tmp_path: Path, who: str
) -> None:
    env = {"ARENA_MOCK_TOKENS_PER_SECOND": "40", "ARENA_MOCK_TOKENS": "20"}
    async with serve_arena(db, database_url, tmp_path, **env) as arena:
        await leave_one(arena, arena, who)


async def test_a_failing_provider_fails_only_the_connection_of_its_slot(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    roster = roster_of(("Good", "openai", "good--ok"), ("Bad", "openai", "bad--server-error"))
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        async with serve_arena(
            db,
            database_url,
            tmp_path,
            roster=roster,
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
            ARENA_MOCK_PROVIDER="0",
        ) as arena:
            results = await asyncio.gather(_post(arena, _body("k")), _post(arena, _body("k")))

    errors = [[d for n, d in frames if n == "slot_error"] for _, frames, _ in results]
    assert sorted(len(e) for e in errors) == [0, 1]
    assert all(frames[-1][0] == "matchup_done" for _, frames, _ in results)


async def test_siblings_continue_a_conversation_together(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        first = await asyncio.gather(_post(arena, _body("t0")), _post(arena, _body("t0")))
        started = first[0][1][0][1]
        await arena.vote(started, "left")
        follow = _body("t1", conversationId=started["conversationId"], prompt="Go on")

        second = await asyncio.gather(_post(arena, follow), _post(arena, follow))

    turns = {frames[0][1]["turnIndex"] for _, frames, _ in second}
    assert all(status == 200 for status, _, _ in second) and turns == {1}
    assert {frames[0][1]["matchupId"] for _, frames, _ in second} != {started["matchupId"]}


async def test_a_conflicting_pre_stream_failure_reaches_both_siblings(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        body = _body("ghost", conversationId=str(uuid.uuid4()))

        results = await asyncio.gather(_post(arena, body), _post(arena, body))

    codes = sorted(error["code"] for _, _, error in results)
    # The follower gets the leader's own failure (or, if it arrives after the leader already
    # failed and closed the scope, join_expired); it never waits or gets a round of its own.
    assert codes[0] == "conversation_not_found"
    assert codes[1] in {"conversation_not_found", "join_expired"}


async def test_no_round_or_join_state_is_left_behind(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        await asyncio.gather(
            *(
                asyncio.gather(_post(arena, _body(f"k{i}")), _post(arena, _body(f"k{i}")))
                for i in range(30)
            )
        )
        # Each round's task lets go of it just after its last event went out.
        await _until(lambda: arena.service.running_rounds == 0, "every round was released")

        running = arena.service.running_rounds
        waiting = arena.service.join_broker.waiting

    assert running == 0 and waiting == 0
