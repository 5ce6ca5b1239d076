"""The Python client's reading of the native stream: SSE events however the bytes are cut,
whatever the line ends, and a round's state as its events are read."""

from __future__ import annotations

import json

import pytest

from arena_client import models as m
from arena_client._wire import RoundState, SseDecoder

STREAM = (
    ": ping\n\n"
    'event: matchup_started\ndata: {"type":"matchup_started","matchupId":"m1",'
    '"matchupToken":"t","conversationId":"c1","slots":["A","B"],"mode":"matchup",'
    '"votable":true}\n\n'
    'event: token\ndata: {"type":"token","slot":"A","token":"Hé"}\n\n'
    'event: token\nid: 7\nretry: 100\ndata: {"type":"token","slot":"B","token":"llo"}\n\n'
    'event: steered\ndata: {"type":"steered","instruction":"shorter"}\n\n'
    'event: token\ndata: {"type":"token","slot":"A","token":"Hi"}\n\n'
    'event: slot_error\ndata: {"type":"slot_error","slot":"B","message":"down",'
    '"code":"provider_timeout"}\n\n'
    'event: future_event\ndata: {"type":"future_event"}\n\n'
    'event: slot_done\ndata: {"type":"slot_done","slot":"A"}\n\n'
    'event: matchup_done\ndata: {"type":"matchup_done"}\n\n'
).encode()

EXPECTED = [
    "matchup_started", "token", "token", "steered", "token", "slot_error", "future_event",
    "slot_done", "matchup_done",
]  # fmt: skip


def _decode(chunks: list[bytes]) -> list[tuple[str, str]]:
    decoder = SseDecoder()
    return [event for chunk in chunks for event in decoder.feed(chunk)]


@pytest.mark.parametrize("ending", ["\n", "\r\n", "\r"])
def test_events_are_whole_however_the_bytes_are_cut(ending: str) -> None:
    stream = STREAM.replace(b"\n", ending.encode())
    whole = _decode([stream])
    assert [name for name, _ in whole] == EXPECTED
    assert json.loads(whole[1][1])["token"] == "Hé"
    for cut in range(1, len(stream)):
        assert _decode([stream[:cut], stream[cut:]]) == whole, cut
    assert _decode([stream[i : i + 1] for i in range(len(stream))]) == whole


def test_a_multi_line_data_field_is_joined_with_newlines() -> None:
    assert _decode([b"data: one\ndata:two\n\n"]) == [("message", "one\ntwo")]


def test_a_round_state_follows_its_events_and_loses_none_to_an_early_stop() -> None:
    started = m.MatchupStarted.model_validate_json(
        '{"matchupId":"m1","slots":["A","B"],"mode":"matchup","votable":true}'
    )
    state = RoundState(started, session="s")
    state.feed(STREAM)
    first = state.take()  # a reader that stops after one event ...
    assert isinstance(first, m.MatchupStarted) and state.started.matchup_token == "t"
    read = [first]
    while (event := state.take()) is not None:  # ... finds the rest where it left them
        read.append(event)
    assert [e.type for e in read] == [n for n in EXPECTED if n != "future_event"]
    assert state.answers == {"A": "Hi", "B": ""}  # the steer restarted both slots
    assert state.steers == ["shorter"] and state.slot_errors["B"].code == "provider_timeout"
    assert state.finished and state.run_error is None and len(state.events) == 8
