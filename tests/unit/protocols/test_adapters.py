"""Each egress adapter against scripted event sequences (no server): framing rules per protocol."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

import pytest

from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.protocols import PROTOCOLS, SLOT_ERROR_MARKER, NativeSSE, RunContext, get_protocol

STARTED = MatchupStarted(
    matchup_id="m1",
    matchup_token="tok.sig",
    conversation_id="c1",
    turn_index=0,
    slots=("A", "B"),
    mode="matchup",
    votable=True,
)
SINGLE = MatchupStarted(matchup_id="m2", slots=("A",), mode="single", votable=False)
ROUND: list[PublicEvent] = [
    STARTED,
    Token(slot="A", token="He"),
    Token(slot="B", token="Yo"),
    SlotError(slot="B", message="boom"),
    SlotDone(slot="B"),
    Token(slot="A", token="llo"),
    SlotDone(slot="A"),
    MatchupDone(),
]
FAILED: list[PublicEvent] = [
    STARTED,
    Token(slot="A", token="He"),
    RunError(code="stream_failed", message="The round failed"),
]
STOPPED: list[PublicEvent] = [STARTED, Token(slot="A", token="He")]


def _frame(name: str, events: Sequence[PublicEvent], context: RunContext | None = None) -> bytes:
    adapter = get_protocol(name).new_adapter(context)
    return b"".join(adapter.serialize(e) for e in events) + adapter.finalize()


def _data(raw: bytes) -> list[Any]:
    blocks = [b for b in raw.decode().split("\n\n") if b]
    assert all(b.startswith("data: ") and "\n" not in b for b in blocks)
    return [b[6:] if b[6:] == "[DONE]" else json.loads(b[6:]) for b in blocks]


def test_native_sse_is_byte_for_byte_the_seed_format() -> None:
    raw = b"".join(NativeSSE().serialize(e) for e in (STARTED, Token(slot="A", token="He")))

    assert raw == (
        b'event: matchup_started\ndata: {"type":"matchup_started","matchupId":"m1",'
        b'"matchupToken":"tok.sig","conversationId":"c1","turnIndex":0,"slots":["A","B"],'
        b'"mode":"matchup","votable":true}\n\n'
        b'event: token\ndata: {"type":"token","slot":"A","token":"He"}\n\n'
    )
    assert NativeSSE().finalize() == b""


@pytest.mark.parametrize("name", [p.name for p in PROTOCOLS])
@pytest.mark.parametrize("events", [ROUND, FAILED, STOPPED], ids=["round", "failed", "stopped"])
def test_no_adapter_writes_anything_identifying_or_unterminated(
    name: str, events: list[PublicEvent]
) -> None:
    raw = _frame(name, events)

    assert raw.endswith(b"\n")
    assert b"\r" not in raw


def test_ag_ui_maps_a_round_to_one_run_with_two_messages() -> None:
    events = _data(_frame("ag-ui", ROUND))

    assert [e["type"] for e in events] == [
        "RUN_STARTED",
        "CUSTOM",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_START",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_CONTENT",
        "CUSTOM",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_CONTENT",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert events[0] == {
        "type": "RUN_STARTED",
        "threadId": "c1",
        "runId": "m1",
        "protocolVersion": "1.0",
    }
    assert events[1]["value"] == json.loads(STARTED.header())
    assert events[6] == {
        "type": "CUSTOM",
        "name": "slot_error",
        "value": {"slot": "B", "message": "boom"},
    }
    assert (
        events[7]["messageId"] == "m1:B"
        and events[7]["delta"].strip() == f"{SLOT_ERROR_MARKER} boom"
    )


def test_ag_ui_echoes_the_clients_run_ids_and_omits_absent_optionals() -> None:
    events = _data(_frame("ag-ui", [SINGLE, MatchupDone()], RunContext("t-9", "r-9")))

    assert events[0] == {
        "type": "RUN_STARTED",
        "threadId": "t-9",
        "runId": "r-9",
        "protocolVersion": "1.0",
    }
    assert events[1]["value"] == {
        "matchupId": "m2",
        "slots": ["A"],
        "mode": "single",
        "votable": False,
    }
    assert events[-1] == {"type": "RUN_FINISHED", "threadId": "t-9", "runId": "r-9"}


def test_ag_ui_sends_nothing_after_run_error() -> None:
    adapter = get_protocol("ag-ui").new_adapter()
    for event in FAILED:
        adapter.serialize(event)

    assert adapter.serialize(Token(slot="A", token="late")) == b""
    assert adapter.serialize(MatchupDone()) == b"" and adapter.finalize() == b""


def test_ag_ui_closes_open_messages_before_finishing_a_stopped_run() -> None:
    events = _data(_frame("ag-ui", STOPPED))

    assert [e["type"] for e in events[-3:]] == [
        "TEXT_MESSAGE_END",
        "TEXT_MESSAGE_END",
        "RUN_FINISHED",
    ]
    assert events[-1]["outcome"] == {"type": "cancelled"}


def test_ag_ui_pre_stream_failure_is_a_single_run_error() -> None:
    events = _data(_frame("ag-ui", [RunError(code="conversation_not_found", message="nope")]))

    assert events == [{"type": "RUN_ERROR", "message": "nope", "code": "conversation_not_found"}]


def test_vercel_carries_slot_a_as_text_and_slot_b_as_data_parts() -> None:
    chunks = _data(_frame("vercel-ai", ROUND))

    assert chunks[0] == {"type": "start"}
    assert chunks[1]["type"] == "data-arena-meta"
    assert chunks[1]["data"] == {**json.loads(STARTED.header()), "mainSlot": "A", "dataSlot": "B"}
    assert [c["type"] for c in chunks[2:-1]] == [
        "text-start",
        "text-delta",
        "data-arena-b-delta",
        "data-arena-error",
        "data-arena-b-done",
        "text-delta",
        "text-end",
        "finish",
    ]
    assert chunks[-1] == "[DONE]" and chunks[-2] == {"type": "finish"}


def test_vercel_single_round_omits_the_data_slot() -> None:
    chunks = _data(_frame("vercel-ai", [SINGLE, MatchupDone()]))

    assert "dataSlot" not in chunks[1]["data"] and chunks[1]["data"]["mainSlot"] == "A"


def test_vercel_run_error_is_the_error_chunk_then_done() -> None:
    chunks = _data(_frame("vercel-ai", FAILED))

    assert chunks[-2:] == [{"type": "error", "errorText": "The round failed"}, "[DONE]"]


def test_vercel_stopped_round_ends_with_text_end_abort_and_done() -> None:
    chunks = _data(_frame("vercel-ai", STOPPED))

    assert chunks[-3:] == [{"type": "text-end", "id": "m1"}, {"type": "abort"}, "[DONE]"]


def test_openai_pins_slot_a_to_the_first_choice_in_every_frame() -> None:
    chunks = _data(_frame("openai", ROUND))

    frames, done = chunks[:-1], chunks[-1]
    assert done == "[DONE]"
    assert all([c["index"] for c in f["choices"]] == [0, 1] for f in frames)
    assert frames[0]["omni_arena"] == json.loads(STARTED.header())
    assert all("omni_arena" not in f for f in frames[1:])
    assert frames[3]["omni_arena_error"] == {"slot": "B", "message": "boom"}
    assert SLOT_ERROR_MARKER in frames[3]["choices"][1]["delta"]["content"]
    assert frames[-1]["choices"][0]["finish_reason"] == "stop"
    assert [c["finish_reason"] for c in frames[-2]["choices"]] == [None, "stop"]  # B stays stopped
    assert len({(f["id"], f["created"], f["model"]) for f in frames}) == 1


def test_openai_run_error_is_an_error_frame_then_done() -> None:
    chunks = _data(_frame("openai", FAILED))

    assert chunks[-2:] == [
        {
            "error": {
                "message": "The round failed",
                "type": "omni_arena_error",
                "code": "stream_failed",
            }
        },
        "[DONE]",
    ]


def test_a2ui_flat_dialect_lines() -> None:
    lines = [json.loads(line) for line in _frame("a2ui", ROUND).decode().splitlines()]

    assert [line["kind"] for line in lines] == [
        "surface_init",
        "text_append",
        "text_append",
        "error",
        "surface_done",
        "text_append",
        "surface_done",
        "session_done",
    ]
    assert all(line["v"] == "a2ui/1" for line in lines)
    assert lines[0]["surfaces"] == ["A", "B"] and "slots" not in lines[0]


def test_a2ui_v09_replaces_the_answer_and_marks_statuses() -> None:
    lines = [json.loads(line) for line in _frame("a2ui-v0.9", ROUND).decode().splitlines()]

    updates = [
        (
            line["updateDataModel"]["surfaceId"],
            line["updateDataModel"]["path"],
            line["updateDataModel"]["value"],
        )
        for line in lines
        if "updateDataModel" in line and line["updateDataModel"]["path"] != "/"
    ]
    assert all(line["version"] == "v0.9" and len(line) == 2 for line in lines)
    assert ("m1:A", "/text", "Hello") in updates and ("m1:B", "/status", "error") in updates
    assert ("m1:A", "/status", "done") in updates


def test_steered_reaches_every_protocol_without_ending_it() -> None:
    events: list[PublicEvent] = [
        STARTED,
        Token(slot="A", token="x"),
        Steered(instruction="shorter"),
        Token(slot="A", token="y"),
    ]

    for protocol in PROTOCOLS:
        assert b"shorter" in _frame(protocol.name, events)
