"""Cutting a streaming answer into whole Markdown blocks (arena_app.state.pane_text)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_app.state.pane_text import freeze_blocks, shows_as_typed

LIMIT = 1000


def test_text_without_a_finished_block_stays_open() -> None:
    assert freeze_blocks("hello wor", LIMIT) == ([], "hello wor", False)


def test_every_finished_paragraph_is_frozen_once_the_next_one_starts() -> None:
    blocks = freeze_blocks("para one\n\npara two\n\nstill going", LIMIT)

    assert blocks == (["para one\n\n", "para two\n\n"], "still going", False)


def test_a_blank_line_ends_a_paragraph_before_the_next_one_starts() -> None:
    # The next words then start a line of their own, not the end of the paragraph's last line.
    assert freeze_blocks("para one\n\n", LIMIT) == (["para one\n\n"], "", False)
    assert freeze_blocks("# Title\n\n| a |\n|---|\n\n", LIMIT).whole == [
        "# Title\n\n",
        "| a |\n|---|\n\n",
    ]


def test_a_blank_line_does_not_end_a_list_before_more_text_comes() -> None:
    assert freeze_blocks("- one\n\n", LIMIT) == ([], "- one\n\n", False)


def test_blank_lines_alone_lead_the_next_block() -> None:
    assert freeze_blocks("para\n\n\n\nnext\n\n", LIMIT).whole == ["para\n\n", "\n\nnext\n\n"]


def test_a_list_stays_one_block_so_it_keeps_its_numbering_and_spacing() -> None:
    text = "Steps:\n\n1. first\n\n2. second\n\n   continued\n\nDone"

    blocks = freeze_blocks(text, LIMIT)

    assert blocks.whole == ["Steps:\n\n", "1. first\n\n2. second\n\n   continued\n\n"]
    assert blocks.rest == "Done"


def test_a_line_that_may_still_become_a_list_item_waits() -> None:
    assert freeze_blocks("1. first\n\n2", LIMIT).whole == []
    assert freeze_blocks("1. first\n\n2024 was a year", LIMIT).whole == ["1. first\n\n"]


def test_blank_lines_inside_a_code_block_do_not_end_it() -> None:
    text = "intro\n\n```python\nx = 1\n\ny = 2\n"

    blocks = freeze_blocks(text, LIMIT)

    assert blocks == (["intro\n\n"], "```python\nx = 1\n\ny = 2\n", True)


def test_a_closed_code_block_is_frozen_when_the_next_block_starts() -> None:
    text = "```\na\n\nb\n```\n\nafter"

    assert freeze_blocks(text, LIMIT) == (["```\na\n\nb\n```\n\n"], "after", False)


def test_a_long_code_block_is_closed_before_the_cut_and_reopened_after() -> None:
    code = "".join(f"line {n}\n" for n in range(40))
    text = "~~~~js\n" + code + "partial"

    blocks = freeze_blocks(text, 100)

    (frozen,) = blocks.whole
    assert frozen == "~~~~js\n" + code + "~~~~\n"
    assert blocks.rest == "~~~~js\npartial" and blocks.in_code


def test_one_enormous_paragraph_is_cut_at_a_word_boundary() -> None:
    text = "word " * 100

    blocks = freeze_blocks(text, 50)

    (frozen,) = blocks.whole
    assert frozen.endswith(" ") and frozen + blocks.rest == text


@given(st.text(alphabet="ab \n#-*1.>", max_size=400), st.integers(min_value=1, max_value=80))
def test_freezing_prose_never_loses_or_reorders_text(text: str, limit: int) -> None:
    blocks = freeze_blocks(text, limit)

    assert "".join(blocks.whole) + blocks.rest == text


@given(st.text(alphabet="ab \n`~", max_size=400))
def test_below_the_limit_code_fences_are_never_altered(text: str) -> None:
    blocks = freeze_blocks(text, LIMIT)

    assert "".join(blocks.whole) + blocks.rest == text


@given(st.lists(st.text(alphabet="ab \n`-1.", max_size=30), max_size=30))
def test_streaming_in_pieces_freezes_the_same_blocks_as_all_at_once(pieces: list[str]) -> None:
    text = "".join(pieces)
    whole: list[str] = []
    rest = ""
    for piece in pieces:
        blocks = freeze_blocks(rest + piece, LIMIT)
        whole += blocks.whole
        rest = blocks.rest

    assert whole + [rest] == [*freeze_blocks(text, LIMIT).whole, freeze_blocks(text, LIMIT).rest]


def test_plain_prose_shows_as_typed() -> None:
    assert shows_as_typed(" the quick brown fox, it said; twice: 42 times.", at_line_start=False)
    assert shows_as_typed("Then it slept", at_line_start=True)


@pytest.mark.parametrize(
    "text",
    [
        " some **bold**",
        " a *stress",
        " snake_case",
        " `code`",
        " [a link](x)",
        " an image !",
        " <https://example.com>",
        " see https://example.com",
        " www.example.com",
        " AT&amp;T",
        " a \\* escape",
        " ~~struck~~",
        " $x^2$",
        " a | table",
        " # heading",
        " a setext ===",
        " well-known",
        " one + two",
        " two lines\nof text",
    ],
)
def test_anything_markdown_may_render_otherwise_does_not(text: str) -> None:
    assert not shows_as_typed(text, at_line_start=False)


@pytest.mark.parametrize("text", ["    indented code", "1. a list", "2) item"])
def test_a_line_starting_with_indentation_or_a_number_does_not(text: str) -> None:
    assert not shows_as_typed(text, at_line_start=True)
    assert shows_as_typed(text.replace(".", "").replace(")", ""), at_line_start=False)
