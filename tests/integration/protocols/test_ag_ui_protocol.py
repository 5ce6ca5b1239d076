"""AG-UI conformance against ``ag-ui-protocol`` (PyPI): its pydantic event models and a replay of
the lifecycle rules its 1.0 run verifier enforces (PROTOCOLS.md §3.4)."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from ag_ui.core import Event, RunAgentInput, UserMessage
from pydantic import TypeAdapter
from sqlalchemy.ext.asyncio import AsyncEngine

from tests.integration.arena_harness import new_id, serve_arena
from tests.integration.protocols._faults import failing_vendor, responses_table_away
from tests.integration.protocols._wire import data_lines

EVENTS: TypeAdapter[Any] = TypeAdapter(Event)
URL = "/api/arena/chat?protocol=ag-ui"


class LifecycleError(AssertionError):
    pass


def verify_lifecycle(events: list[dict[str, Any]]) -> None:
    """The §3.4 rules: RUN_STARTED (or RUN_ERROR) first; nothing after RUN_ERROR; only a new
    RUN_STARTED after RUN_FINISHED; RUN_FINISHED with no open message; per-id message rules;
    plus this project's: no empty delta, no ``null`` anywhere, a terminal event last."""
    open_messages: set[str] = set()
    state = "idle"
    for number, event in enumerate(events):
        kind = event["type"]
        if "null" in json.dumps(event):
            raise LifecycleError(f"event {number} carries a null: {event}")
        if state == "errored":
            raise LifecycleError(f"{kind} after RUN_ERROR")
        if number == 0 and kind not in ("RUN_STARTED", "RUN_ERROR"):
            raise LifecycleError("First event must be 'RUN_STARTED'")
        if state == "finished" and kind not in ("RUN_STARTED", "RUN_ERROR"):
            raise LifecycleError(f"{kind} after RUN_FINISHED")
        if kind == "RUN_STARTED":
            if state == "running":
                raise LifecycleError("RUN_STARTED while a run is active")
            state = "running"
        elif kind == "TEXT_MESSAGE_START":
            if event["messageId"] in open_messages:
                raise LifecycleError(f"{event['messageId']} started twice")
            open_messages.add(event["messageId"])
        elif kind == "TEXT_MESSAGE_CONTENT":
            if event["messageId"] not in open_messages:
                raise LifecycleError(f"content for closed {event['messageId']}")
            if not event["delta"]:
                raise LifecycleError("empty delta")
        elif kind == "TEXT_MESSAGE_END":
            if event["messageId"] not in open_messages:
                raise LifecycleError(f"end for closed {event['messageId']}")
            open_messages.discard(event["messageId"])
        elif kind == "RUN_FINISHED":
            if open_messages:
                raise LifecycleError(f"RUN_FINISHED with open messages {open_messages}")
            state = "finished"
        elif kind == "RUN_ERROR":
            state = "errored"
    if state not in ("finished", "errored"):
        raise LifecycleError("the stream ended without RUN_FINISHED or RUN_ERROR")


def _events(raw: str) -> list[dict[str, Any]]:
    events = [json.loads(payload) for payload in data_lines(raw)]
    for event in events:
        EVENTS.validate_python(event)  # every event is a valid ag-ui-protocol event
    return events


def _input(prompt: str, **forwarded: Any) -> dict[str, Any]:
    """A RunAgentInput built and serialised by the ag-ui-protocol models themselves."""
    model = RunAgentInput(
        thread_id=f"thread-{new_id()}",
        run_id=f"run-{new_id()}",
        state={},
        messages=[UserMessage(id="u1", role="user", content=prompt)],
        tools=[],
        context=[],
        forwarded_props=forwarded,
    )
    return model.model_dump(by_alias=True, exclude_none=True)


def test_the_verifier_rejects_what_the_client_rejects() -> None:
    started = {"type": "RUN_STARTED", "threadId": "t", "runId": "r"}
    bad = [
        [{"type": "TEXT_MESSAGE_START", "messageId": "m"}],
        [started, {"type": "RUN_ERROR", "message": "x"}, {"type": "RUN_FINISHED"}],
        [started, {"type": "TEXT_MESSAGE_START", "messageId": "m"}, {"type": "RUN_FINISHED"}],
        [started, {"type": "TEXT_MESSAGE_CONTENT", "messageId": "m", "delta": "x"}],
        [started],
    ]

    for events in bad:
        with pytest.raises(LifecycleError):
            verify_lifecycle(events)


async def test_a_round_and_its_follow_up_are_valid_ag_ui_runs(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        body = _input("Explain JWTs", sessionId="agui-session")
        first = _events((await arena.client.post(URL, json=body)).text)
        metadata = next(e["value"] for e in first if e.get("name") == "arena_matchup")
        await arena.vote(metadata, "left")
        follow = _input(
            "Go deeper", sessionId="agui-session", conversationId=metadata["conversationId"]
        )
        second = _events((await arena.client.post(URL, json=follow)).text)

    verify_lifecycle(first)
    verify_lifecycle(second)
    assert (first[0]["threadId"], first[0]["runId"]) == (body["threadId"], body["runId"])
    assert first[-1] == {
        "type": "RUN_FINISHED",
        "threadId": body["threadId"],
        "runId": body["runId"],
    }
    assert first[0]["protocolVersion"] == "1.0"
    assert {e["messageId"] for e in first if e["type"] == "TEXT_MESSAGE_START"} == {
        f"{metadata['matchupId']}:A",
        f"{metadata['matchupId']}:B",
    }
    assert next(e["value"] for e in second if e.get("name") == "arena_matchup")["turnIndex"] == 1


async def test_a_slot_failure_keeps_the_run_valid_and_marks_the_failed_message(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    with failing_vendor() as (roster, env):
        async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
            events = _events((await arena.client.post(URL, json=_input("hi"))).text)

    verify_lifecycle(events)
    (failure,) = [e for e in events if e.get("name") == "slot_error"]
    marked = [e for e in events if "[omni-arena:slot-error]" in e.get("delta", "")]
    assert marked and marked[0]["messageId"].endswith(":" + failure["value"]["slot"])
    assert events[-1]["type"] == "RUN_FINISHED"


async def test_a_round_failing_mid_stream_ends_with_run_error_and_nothing_after(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        async with responses_table_away(db):
            events = _events((await arena.client.post(URL, json=_input("hi"))).text)

    verify_lifecycle(events)
    assert events[-1] == {
        "type": "RUN_ERROR",
        "message": "The round failed",
        "code": "stream_failed",
    }


@pytest.mark.parametrize(
    ("body", "code"),
    [
        pytest.param(
            {
                "messages": [{"id": "s", "role": "system", "content": "x"}],
                "threadId": "t",
                "runId": "r",
            },
            "invalid_request",
            id="no-user-message",
        ),
        pytest.param(
            {
                "threadId": "t",
                "runId": "r",
                "messages": [{"id": "u", "role": "user", "content": "hi"}],
                "forwardedProps": {"conversationId": "00000000-0000-0000-0000-000000000000"},
            },
            "conversation_not_found",
            id="unknown-conversation",
        ),
        pytest.param(
            {
                "threadId": "t",
                "runId": "r",
                "messages": [{"id": "u", "role": "user", "content": "hi"}],
                "forwardedProps": {"sessionId": ""},
            },
            "invalid_request",
            id="bad-forwarded-props",
        ),
    ],
)
async def test_a_failure_before_streaming_is_a_single_run_error_at_200(
    db: AsyncEngine, database_url: str, tmp_path: Path, body: dict[str, Any], code: str
) -> None:
    async with serve_arena(db, database_url, tmp_path) as arena:
        response = await arena.client.post(URL, json=body)
        events = _events(response.text)

    assert response.status_code == 200
    assert response.headers["content-type"].startswith("text/event-stream")
    assert [e["type"] for e in events] == ["RUN_ERROR"] and events[0]["code"] == code
    verify_lifecycle(events)


async def test_a_0_1_shaped_input_with_snake_case_keys_and_null_props_is_accepted(
    db: AsyncEngine, database_url: str, tmp_path: Path
) -> None:
    body = {
        "thread_id": "t-1",
        "run_id": "r-1",
        "messages": [{"id": "u", "role": "user", "content": [{"type": "text", "text": "hi"}]}],
        "tools": [],
        "context": [],
        "forwarded_props": None,
    }
    async with serve_arena(db, database_url, tmp_path) as arena:
        events = _events((await arena.client.post(URL, json=body)).text)

    verify_lifecycle(events)
    assert (events[0]["threadId"], events[0]["runId"]) == ("t-1", "r-1")
