"""Freezing streamed text into whole Markdown blocks (arena_app.state.arena.split_stable)."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from arena_app.state.arena import split_stable


def test_short_tail_is_left_alone() -> None:
    assert split_stable("hello\n\nworld", 100) == ("", "hello\n\nworld")


def test_freezes_up_to_the_last_blank_line() -> None:
    text = "para one\n\npara two\n\nstill going"

    assert split_stable(text, 10) == ("para one\n\npara two\n\n", "still going")


def test_never_cuts_inside_a_code_fence() -> None:
    text = "intro\n\n```python\nx = 1\n\ny = 2\n```\nafter"

    head, tail = split_stable(text, 10)

    assert head == "intro\n\n"
    assert tail.startswith("```python") and tail.count("```") == 2


def test_one_enormous_paragraph_is_cut_at_a_word_boundary() -> None:
    text = "word " * 100

    head, tail = split_stable(text, 50)

    assert head and head.endswith(" ") and head + tail == text


@given(st.text(alphabet="ab \n`#-*", max_size=400), st.integers(min_value=1, max_value=80))
def test_splitting_never_loses_or_reorders_text(text: str, limit: int) -> None:
    head, tail = split_stable(text, limit)

    assert head + tail == text
