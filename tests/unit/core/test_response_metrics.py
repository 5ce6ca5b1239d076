from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from arena_api.core import response_metrics
from arena_api.core.response_metrics import estimate_tokens, markdown_density

PROSE = (
    "The quick brown fox jumps over the lazy dog. It was a sunny day,\n"
    "and nobody minded the noise. Prices rose by 3% in 2024 (roughly).\n"
    "Use snake_case_names in Python, and 2 * 3 * 4 equals 24 | not 25.\n"
)


def test_module_exports_the_two_metrics() -> None:
    assert set(response_metrics.__all__) == {"estimate_tokens", "markdown_density"}


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        pytest.param("", 0, id="empty"),
        pytest.param(" \n\t ", 0, id="blank"),
        pytest.param("hello", 2, id="one-word"),
        pytest.param("one two three", 4, id="three-words"),
        pytest.param("Hello, world.", 5, id="words-and-punctuation"),
        pytest.param("a" * 25, 4, id="long-run-counts-as-three-words"),
        pytest.param("你好世界", 4, id="cjk-one-per-character"),
        pytest.param("snake_case", 4, id="underscore-splits-words"),
    ],
)
def test_token_estimate_follows_the_documented_rule(text: str, expected: int) -> None:
    assert estimate_tokens(text) == expected


def test_token_estimate_of_prose_is_about_four_thirds_of_the_words() -> None:
    text = " ".join(["word"] * 300)

    estimate = estimate_tokens(text)

    assert estimate == 400


@given(st.text())
def test_token_estimate_is_never_negative(text: str) -> None:
    assert estimate_tokens(text) >= 0


@given(st.text(), st.text())
def test_appending_text_never_lowers_the_token_estimate(text: str, more: str) -> None:
    assert estimate_tokens(text) <= estimate_tokens(text + more)


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("", id="empty"),
        pytest.param("\n\n  \n", id="blank-lines"),
        pytest.param(PROSE, id="plain-prose"),
        pytest.param("#hashtag is not a heading\n-5 degrees outside", id="lookalikes"),
    ],
)
def test_plain_text_has_zero_markdown_density(text: str) -> None:
    assert markdown_density(text) == 0.0


@pytest.mark.parametrize(
    "text",
    [
        pytest.param("- apples\n- pears\n* plums\n1. first\n2) second", id="lists"),
        pytest.param("```python\nx = 1\n\nprint(x)\n```", id="code-fence"),
        pytest.param("~~~\nunclosed block\nstill code", id="unclosed-tilde-fence"),
        pytest.param("# Title\n## Subtitle\n> quoted\n---", id="headings-quote-rule"),
        pytest.param("| a | b |\n|---|---|\n| 1 | 2 |", id="table"),
        pytest.param(
            "Call `run()` now.\nThis is **bold**.\nThis is *italic*.\nSee [docs](https://x.y).",
            id="inline-markers",
        ),
    ],
)
def test_markdown_heavy_text_has_full_density(text: str) -> None:
    assert markdown_density(text) == 1.0


def test_density_is_the_share_of_non_blank_lines_with_markdown() -> None:
    text = "# Heading\n\nFirst plain line.\nSecond plain line.\n\n- item\n"

    density = markdown_density(text)

    assert density == pytest.approx(2 / 4)


def test_fence_closes_only_on_a_fence_of_the_same_kind() -> None:
    text = "````\n```\ninner\n````\nplain after"

    density = markdown_density(text)

    assert density == pytest.approx(4 / 5)


@given(st.text())
def test_markdown_density_is_always_within_zero_and_one(text: str) -> None:
    assert 0.0 <= markdown_density(text) <= 1.0


@given(st.lists(st.sampled_from(["# h", "- i", "> q", "plain", "`c`", "|a|b|", "", "```"])))
def test_markdown_density_stays_within_bounds_for_markdown_like_lines(lines: list[str]) -> None:
    assert 0.0 <= markdown_density("\n".join(lines)) <= 1.0


@pytest.mark.parametrize(
    "line",
    [
        pytest.param("**a " * 20_000, id="unclosed-bold"),
        pytest.param("__a " * 20_000, id="unclosed-underscore-bold"),
        pytest.param("[a](" * 20_000, id="unclosed-links"),
    ],
)
def test_long_line_of_unclosed_markers_is_measured_in_linear_time(line: str) -> None:
    """Unbounded spans took over ten seconds here; bounded ones take milliseconds."""
    density = markdown_density(line)

    assert density in (0.0, 1.0)
