"""Linear history rules: who may continue, from which winner, and why not."""

from __future__ import annotations

import time
import uuid

import pytest

from arena_api.core.conversation import is_continuable, next_turn
from arena_api.core.errors import ConversationError
from arena_api.core.ids import new_id
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.records import ConversationRecord, StoredAnswer, TurnRecord

A = ModelEntry(uuid.uuid4(), "a", "mock", "a")
B = ModelEntry(uuid.uuid4(), "b", "mock", "b")


def _turn(index: int, vote: str | None, matchup_id: uuid.UUID | None = None) -> TurnRecord:
    return TurnRecord(
        turn_index=index,
        matchup_id=matchup_id or uuid.uuid4(),
        prompt=f"p{index}",
        mode="blind",
        vote=vote,  # type: ignore[arg-type]
        answers=(
            StoredAnswer("A", uuid.uuid4(), f"a{index}", None),
            StoredAnswer("B", uuid.uuid4(), f"b{index}", None),
        ),
        slot_a=A,
        slot_b=B,
    )


def test_context_is_prompts_and_winning_answers_only() -> None:
    conversation = ConversationRecord(uuid.uuid4(), "s", (_turn(0, "left"), _turn(1, "right")))

    turn = next_turn(conversation, "s")

    assert turn.turn_index == 2
    assert turn.parent_response_id == conversation.turns[1].answers[1].response_id
    assert [m.content for m in turn.history] == ["p0", "a0", "p1", "b1"]
    assert turn.history[1] == ChatMessage(role="assistant", content="a0")


@pytest.mark.parametrize("vote", ["both_good", "both_bad", "skip", None])
def test_a_turn_without_a_winner_ends_the_branch(vote: str | None) -> None:
    conversation = ConversationRecord(uuid.uuid4(), None, (_turn(0, vote),))

    with pytest.raises(ConversationError) as caught:
        next_turn(conversation, None)

    assert caught.value.code == "conversation_not_ready" and not is_continuable(conversation)


def test_another_sessions_conversation_is_forbidden() -> None:
    conversation = ConversationRecord(uuid.uuid4(), "owner", (_turn(0, "left"),))

    with pytest.raises(ConversationError) as caught:
        next_turn(conversation, "intruder")

    assert (caught.value.status, caught.value.code) == (403, "conversation_forbidden")


def test_a_turn_created_after_the_request_arrived_is_a_conflict_not_a_missing_vote() -> None:
    arrived = time.time_ns() // 1_000_000 - 5
    raced = ConversationRecord(
        uuid.uuid4(), None, (_turn(0, "left"), _turn(1, None, matchup_id=new_id()))
    )

    with pytest.raises(ConversationError) as caught:
        next_turn(raced, None, requested_at_ms=arrived)

    assert caught.value.code == "conversation_conflict"
    with pytest.raises(ConversationError) as later:
        next_turn(raced, None, requested_at_ms=arrived + 60_000)
    assert later.value.code == "conversation_not_ready"
