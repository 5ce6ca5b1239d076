"""A judge's verdict, read from the shapes real judge models write (a corpus of messy ones)."""

from __future__ import annotations

import pytest

from arena_api.core.verdicts import normalise_choice, parse_verdict

CORPUS = [
    # -- the asked-for JSON, and JSON dressed up ------------------------------------------------
    ('{"reasoning": "A cites the RFC.", "verdict": "A"}', "A"),
    ('{"reasoning": "B is shorter and right.", "verdict": "B"}', "B"),
    ('{"verdict": "tie", "reasoning": "Both fine."}', "tie"),
    ('{"verdict": "both_bad", "reasoning": "Both wrong."}', "both_bad"),
    ('```json\n{"reasoning": "x", "verdict": "A"}\n```', "A"),
    ('```\n{"reasoning": "x", "verdict": "B"}\n```', "B"),
    (
        'Here is my evaluation:\n```json\n{"verdict": "B", "reasoning": "y"}\n```\n'
        "Hope this helps!",
        "B",
    ),
    ('{"reasoning": "x", "verdict": "A"} I am confident in this.', "A"),
    ('Sure! {"reasoning": "both good", "verdict": "TIE"}', "tie"),
    ('{"Reasoning": "x", "Verdict": "a"}', "A"),
    ('{"VERDICT": "Answer B"}', "B"),
    ('{"winner": "Answer A", "explanation": "more complete"}', "A"),
    ('{"decision": "B", "rationale": "cleaner code"}', "B"),
    ('{"choice": "1"}', "A"),
    ('{"choice": 2}', "B"),
    ('{"better_answer": "Response A"}', "A"),
    ('{"final verdict": "[[B]]"}', "B"),
    ("{'reasoning': 'single quotes', 'verdict': 'A'}", "A"),
    ('{"reasoning": "trailing comma", "verdict": "B",}', "B"),
    ('{"verdict": "Both are bad", "reasoning": "neither answers"}', "both_bad"),
    ('{"verdict": "neither", "reasoning": "both hallucinate"}', "both_bad"),
    ('{"verdict": "draw"}', "tie"),
    ('{"verdict": "Equal"}', "tie"),
    ('{"verdict": "both good"}', "tie"),
    ('{"verdict": "Assistant A"}', "A"),
    ('{"verdict": "model b"}', "B"),
    ('{"verdict": "A is better"}', "A"),
    ('{"verdict": "**B**"}', "B"),
    ('{"verdict": "the winner is B"}', "B"),
    (
        'Thinking: A is longer. {"draft": "A"} On reflection:\n{"reasoning": "B is right", '
        '"verdict": "B"}',
        "B",
    ),
    ('{"analysis": {"a": "ok", "b": "better"}, "verdict": "B"}', "B"),
    # -- no JSON: statements -------------------------------------------------------------------
    ("Verdict: A", "A"),
    ("After comparing both, my verdict: **B**", "B"),
    ("The winner is Answer A.", "A"),
    ("Final answer: [[B]]", "B"),
    ("[[A]]", "A"),
    ("Both answers are reasonable. [[C]]", "tie"),
    ("I think it's a tie. Final verdict: tie", "tie"),
    ("Decision - both bad", "both_bad"),
    ("Answer B looks good at first, but the final answer: A", "A"),
    ("verdict = B", "B"),
    ("I choose Response B because it handles the edge case.", "B"),
    # -- unreadable: never a guess --------------------------------------------------------------
    ("", None),
    ("I cannot decide between these.", None),
    ('{"verdict": "maybe"}', None),
    ('{"reasoning": "no verdict key at all"}', None),
    ('{"verdict": true}', None),
    ("```json\n{broken json\n```", None),
    ("Both answers discuss JWTs.", None),
]


@pytest.mark.parametrize(
    ("text", "expected"), CORPUS, ids=[f"v{i:02d}" for i in range(len(CORPUS))]
)
def test_a_messy_verdict_is_read_or_left_unread_never_guessed(
    text: str, expected: str | None
) -> None:
    assert parse_verdict(text).choice == expected


def test_the_corpus_is_large_enough_to_mean_something() -> None:
    assert len(CORPUS) >= 40


def test_the_reasoning_is_kept_from_json_and_from_prose() -> None:
    from_json = parse_verdict('{"reasoning": "A cites the RFC.", "verdict": "A"}')
    from_prose = parse_verdict("A explains expiry; B does not.\nVerdict: A")

    assert from_json.reasoning == "A cites the RFC."
    assert "expiry" in from_prose.reasoning


@pytest.mark.parametrize(
    ("raw", "expected"),
    [("A", "A"), ("b", "B"), (" Tie ", "tie"), ("both_bad", "both_bad"), (3, None), (None, None)],
)
def test_choices_are_normalised(raw: object, expected: str | None) -> None:
    assert normalise_choice(raw) == expected
