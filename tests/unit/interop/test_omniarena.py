"""The seed's rows in batches: the part of a batch that belongs to some conversations, the
conversation a round without one gets (the same on every import), and a schema refused by name."""

from __future__ import annotations

import uuid
from datetime import UTC, datetime

import pytest

from arena_api.interop.omniarena import (
    REQUIRED_COLUMNS,
    TABLES,
    SeedBatch,
    SeedSchemaError,
    check_schema,
    loose_round,
)


def test_a_batch_keeps_only_the_rows_of_the_conversations_asked_for() -> None:
    c1, c2, m1, m2, m3 = (uuid.uuid4() for _ in range(5))
    batch = SeedBatch(
        conversations=[{"id": c1}, {"id": c2}],
        turns=[
            {"conversation_id": c1, "matchup_id": m1},
            {"conversation_id": c1, "matchup_id": m2},
            {"conversation_id": c2, "matchup_id": m3},
        ],
        matchups=[{"id": m1}, {"id": m2}, {"id": m3}],
        responses=[{"matchup_id": m} for m in (m1, m1, m2, m3)],
        preferences=[{"matchup_id": m2}, {"matchup_id": m3}],
    )

    kept = batch.only([c1])

    assert kept.conversation_ids == [c1]
    assert [m["id"] for m in kept.matchups] == [m1, m2]
    assert len(kept.turns) == 2 and len(kept.responses) == 3
    assert kept.preferences == [{"matchup_id": m2}]
    assert batch.only([]).matchups == []


def test_a_round_without_a_conversation_gets_the_same_one_on_every_import() -> None:
    matchup = {
        "id": uuid.uuid4(),
        "prompt": "Why is the sky blue?",
        "created_at": datetime(2025, 3, 1, tzinfo=UTC),
    }

    head, turn = loose_round(matchup, "sess-1")
    again, _ = loose_round(matchup, "sess-1")
    other, _ = loose_round({**matchup, "id": uuid.uuid4()}, None)

    assert head == again and head["id"] != other["id"]
    assert head["anonymous_session_id"] == "sess-1" and head["created_at"] == matchup["created_at"]
    assert turn["conversation_id"] == head["id"] and turn["matchup_id"] == matchup["id"]
    assert turn["turn_index"] == 0 and turn["prompt"] == matchup["prompt"]
    assert turn["parent_response_id"] is None and turn["id"] != head["id"]


def _columns() -> set[tuple[str, str]]:
    have = {(t, "id") for t in TABLES}
    return have | {(t, c) for t, cs in REQUIRED_COLUMNS.items() for c in cs}


def test_a_schema_is_refused_naming_what_it_lacks() -> None:
    check_schema(_columns())
    with pytest.raises(SeedSchemaError, match="no table turns: this is not an OmniArena"):
        check_schema({c for c in _columns() if c[0] != "turns"})
    with pytest.raises(SeedSchemaError, match=r"lacks matchups\.steers, responses\.ttft_ms: run"):
        check_schema(_columns() - {("matchups", "steers"), ("responses", "ttft_ms")})
