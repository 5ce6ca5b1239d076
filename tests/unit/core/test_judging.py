"""What the judge is shown, and what its verdicts mean in slots and votes."""

from __future__ import annotations

import uuid

import pytest

from arena_api.core.judging import (
    DEFAULT_PROMPT,
    Reading,
    combine,
    history_before,
    judge_messages,
    outcome_vote,
    slot_choice,
)
from arena_api.core.models import ModelEntry
from arena_api.core.records import ConversationRecord, StoredAnswer, TurnRecord


@pytest.mark.parametrize(
    ("choice", "shown_first", "outcome"),
    [
        ("A", "A", "A"),
        ("B", "A", "B"),
        ("A", "B", "B"),  # B was shown first and called "A": slot B won
        ("B", "B", "A"),
        ("tie", "B", "tie"),
        ("both_bad", "A", "both_bad"),
        (None, "A", "unparseable"),
    ],
)
def test_a_verdict_in_the_judges_terms_maps_back_to_slots(
    choice: str | None, shown_first: str, outcome: str
) -> None:
    assert slot_choice(choice, shown_first) == outcome  # type: ignore[arg-type]


def _reading(outcome: str, shown_first: str = "A") -> Reading:
    return Reading(shown_first=shown_first, text="", reasoning="", outcome=outcome)  # type: ignore[arg-type]


@pytest.mark.parametrize(
    ("outcomes", "combined"),
    [
        (["A"], "A"),
        (["A", "A"], "A"),
        (["A", "B"], "tie"),  # the swap disagrees: position, not quality, decided
        (["both_bad", "tie"], "tie"),
        (["both_bad", "both_bad"], "both_bad"),
        (["A", "unparseable"], "unparseable"),
        (["unparseable"], "unparseable"),
    ],
)
def test_readings_combine_and_a_disagreement_is_a_tie(outcomes: list[str], combined: str) -> None:
    assert combine([_reading(o) for o in outcomes]) == combined


def test_outcomes_become_votes_and_unparseable_never_does() -> None:
    assert [outcome_vote(o) for o in ("A", "B", "tie", "both_bad", "unparseable")] == [
        "left",
        "right",
        "both_good",
        "both_bad",
        None,
    ]


def test_the_judge_is_shown_the_answers_in_the_order_given_and_no_names() -> None:
    messages = judge_messages(DEFAULT_PROMPT, "", "Explain JWTs", "second slot's", "first slot's")

    body = messages[1].content
    assert messages[0].role == "system" and messages[1].role == "user"
    assert body.index("second slot's") < body.index("first slot's")
    assert '"verdict": "A" | "B"' in body


def test_the_conversation_so_far_is_each_prompt_and_the_kept_answer() -> None:
    model = ModelEntry(uuid.uuid4(), "M", "mock", "m")
    turns = tuple(
        TurnRecord(
            turn_index=i,
            matchup_id=uuid.uuid4(),
            prompt=f"question {i}",
            mode="blind",
            vote="right",
            answers=(
                StoredAnswer("A", uuid.uuid4(), f"lost {i}", None),
                StoredAnswer("B", uuid.uuid4(), f"kept {i}", None),
            ),
            slot_a=model,
            slot_b=model,
        )
        for i in range(3)
    )
    conversation = ConversationRecord(id=uuid.uuid4(), session_id=None, turns=turns)

    text = history_before(conversation, 2)

    assert "question 0" in text and "kept 1" in text
    assert "lost" not in text and "question 2" not in text
    assert history_before(conversation, 0) == "" and history_before(None, None) == ""
