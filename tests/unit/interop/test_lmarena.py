"""LMArena battle records read as battles (a JSON array or JSON Lines, streamed, each bad record
named by its place) and our votes written as them."""

from __future__ import annotations

import io
import json
import uuid
from datetime import UTC, datetime
from typing import Any

import pytest

from arena_api.interop import jsonstream, lmarena
from arena_api.interop.battles import BadRecord, Battle, Exchange


def _record(n: int = 0, **extra: Any) -> dict[str, Any]:
    return {
        "question_id": f"q{n}",
        "model_a": "gpt-4",
        "model_b": "claude-2",
        "winner": "model_a",
        "judge": "arena_user_9",
        "turn": 1,
        "anony": True,
        "language": "German",
        "tstamp": 1_700_000_000.5 + n,
        **extra,
    }


def _read(text: str) -> list[Battle | BadRecord]:
    return list(lmarena.read_battles(io.StringIO(text)))


@pytest.mark.parametrize("chunk", [7, 64, 1 << 20])
def test_an_array_and_json_lines_read_alike_whatever_the_chunk_size(
    monkeypatch: pytest.MonkeyPatch, chunk: int
) -> None:
    monkeypatch.setattr(jsonstream, "_CHUNK", chunk)
    records = [_record(n) for n in range(50)]

    as_array = _read(json.dumps(records, indent=1))
    as_lines = _read("\n".join(json.dumps(r) for r in records) + "\n")

    assert as_array == as_lines
    assert [b.source_id for b in as_array if isinstance(b, Battle)] == [f"q{n}" for n in range(50)]


def test_a_record_becomes_a_battle_in_our_labels() -> None:
    (battle,) = _read(json.dumps(_record()))

    assert battle == Battle(
        source="lmarena",
        source_id="q0",
        model_a="gpt-4",
        model_b="claude-2",
        vote="left",
        voted_at=datetime.fromtimestamp(1_700_000_000.5, UTC),
        voter="arena_user_9",
        language="de",
    )


@pytest.mark.parametrize(
    ("winner", "vote"),
    [
        ("model_a", "left"),
        ("model_b", "right"),
        ("tie", "both_good"),
        ("tie (bothbad)", "both_bad"),
        ("both_bad", "both_bad"),
    ],
)
def test_every_winner_maps_to_our_vote(winner: str, vote: str) -> None:
    (battle,) = _read(json.dumps(_record(winner=winner)))

    assert isinstance(battle, Battle) and battle.vote == vote


def test_conversations_become_exchanges_and_must_ask_the_same() -> None:
    a = [
        {"role": "user", "content": "Hi"},
        {"role": "assistant", "content": "Hello"},
        {"role": "user", "content": [{"type": "text", "text": "More"}]},
        {"role": "assistant", "content": "Sure"},
    ]
    b = [
        *a[:1],
        {"role": "assistant", "content": "Hey"},
        a[2],
        {"role": "assistant", "content": "OK"},
    ]
    (battle,) = _read(json.dumps(_record(conversation_a=a, conversation_b=b)))
    (other,) = _read(json.dumps(_record(conversation_a=a, conversation_b=b[:1])))

    assert isinstance(battle, Battle) and battle.turns == 2
    assert battle.exchanges == (Exchange("Hi", "Hello", "Hey"), Exchange("More", "Sure", "OK"))
    assert isinstance(other, BadRecord) and "different questions" in other.why


@pytest.mark.parametrize(
    ("change", "why"),
    [
        ({"model_a": ""}, "model_a must be a model name"),
        ({"model_b": "gpt-4"}, "the same model"),
        ({"winner": "left"}, "winner must be one of"),
        ({"tstamp": "yesterday"}, "tstamp must be a Unix time"),
        ({"tstamp": 1e12}, "between 2000 and 2100"),
        ({"anony": "yes"}, "anony must be true or false"),
        ({"method": "robot"}, "method must be human or judge"),
        (
            {"conversation_a": [{"role": "assistant", "content": "x"}], "conversation_b": []},
            "roles",
        ),
    ],
)
def test_a_bad_record_says_where_and_why(change: dict[str, Any], why: str) -> None:
    text = json.dumps(_record(1)) + "\n\n" + json.dumps(_record(2, **change)) + "\n"

    good, bad = _read(text)

    assert isinstance(good, Battle)
    assert isinstance(bad, BadRecord) and bad.where == "line 3 (question_id q2)"
    assert why in bad.why


def test_broken_json_is_reported_and_an_unclosed_array_too() -> None:
    lines = _read('{"model_a": \n' + json.dumps(_record()))
    array = _read("[" + json.dumps(_record()) + ",")

    assert isinstance(lines[0], BadRecord) and lines[0].why.startswith("not JSON")
    assert isinstance(lines[1], Battle)
    assert isinstance(array[0], Battle)
    assert array[1] == BadRecord("item 1", "the JSON array is not closed")


def test_a_record_without_question_id_gets_a_stable_id() -> None:
    record = _record()
    del record["question_id"]

    first, second = _read(json.dumps(record)), _read(json.dumps(record))

    assert isinstance(first[0], Battle) and first[0].source_id.startswith("sha256:")
    assert first == second


def test_our_vote_becomes_a_record_notebooks_read() -> None:
    matchup = uuid.uuid4()
    row = {
        "matchup_id": matchup,
        "model_a": "A",
        "model_b": "B",
        "outcome": "both_bad",
        "method": "judge",
        "mode": "named",
        "session": "abc",
        "language": "fr",
        "voted_at": datetime(2026, 1, 2, tzinfo=UTC),
        "turn": 2,
    }

    record = lmarena.battle_record(row, [("Q1", "a1", "b1"), ("Q2", "a2", None)])

    assert record == {
        "question_id": matchup.hex,
        "model_a": "A",
        "model_b": "B",
        "winner": "tie (bothbad)",
        "judge": "arena_user_abc",
        "turn": 2,
        "anony": False,
        "language": "French",
        "tstamp": datetime(2026, 1, 2, tzinfo=UTC).timestamp(),
        "method": "judge",
        "conversation_a": [
            {"role": "user", "content": "Q1"},
            {"role": "assistant", "content": "a1"},
            {"role": "user", "content": "Q2"},
            {"role": "assistant", "content": "a2"},
        ],
        "conversation_b": [
            {"role": "user", "content": "Q1"},
            {"role": "assistant", "content": "b1"},
            {"role": "user", "content": "Q2"},
        ],
    }
    assert lmarena.battle_record({**row, "outcome": "skip"}) is None


def test_language_names_and_codes_map_both_ways() -> None:
    assert lmarena.language_name("de") == "German" and lmarena.language_name("und") == "unknown"
    assert lmarena.language_code("German") == "de" and lmarena.language_code("unknown") is None
    assert lmarena.language_code("sw") == "sw" and lmarena.language_code("Klingon") is None
