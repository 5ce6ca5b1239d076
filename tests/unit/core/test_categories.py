"""The categories a prompt is classified into, from a table of examples."""

from __future__ import annotations

import pytest

from arena_api.core.categories import classify, prompt_key

EXAMPLES = [
    # -- coding ----------------------------------------------------------------------------------
    ("Why does this fail?\n```python\nprint(x)\n```", ("coding",)),
    ("Traceback (most recent call last):\n  File \"app.py\", line 3\nKeyError: 'a'", ("coding",)),
    ("def add(a, b):\n    return a + b\nwhat is wrong here?", ("coding",)),
    ("Write a Python function that reverses a string", ("coding",)),
    ("How do I fix a NullPointerException in my Java service?", ("coding",)),
    ("Debug this SQL query: it returns duplicates", ("coding",)),
    ("Implement binary search in Rust", ("coding",)),
    # -- math ------------------------------------------------------------------------------------
    ("What is 12 * 17?", ("math",)),
    ("Prove that the square root of 2 is irrational", ("math",)),
    ("Compute the integral of x^2 from 0 to 3", ("math",)),
    ("What is the probability of rolling two sixes?", ("math",)),
    (r"Simplify $\frac{x^2 - 1}{x - 1}$", ("math",)),
    # -- creative writing ------------------------------------------------------------------------
    ("Write a haiku about autumn rain", ("creative_writing",)),
    ("Tell me a bedtime story about a dragon", ("creative_writing",)),
    ("Compose song lyrics about leaving home", ("creative_writing",)),
    ("Let's role-play: you are a pirate captain", ("creative_writing",)),
    # -- instruction following -------------------------------------------------------------------
    ("Summarise the French Revolution in 50 words", ("instruction_following",)),
    ("List the planets as a JSON array", ("instruction_following",)),
    ("Explain DNS in exactly three sentences", ("instruction_following",)),
    ("Describe Paris without using the letter e", ("instruction_following",)),
    ("Give me tips for sleep, do not mention caffeine", ("instruction_following",)),
    # -- several at once -------------------------------------------------------------------------
    ("Write a Python script and answer only with the code", ("coding", "instruction_following")),
    ("Write a poem in exactly four lines", ("creative_writing", "instruction_following")),
    ("Write a JavaScript function computing 3 + 4 * n", ("coding", "math")),
    # -- none: everyday questions ----------------------------------------------------------------
    ("What is the capital of Australia?", ()),
    ("How do I make a sourdough starter?", ()),
    ("Explain how vaccines work to a child", ()),
    ("What should I see in Lisbon?", ()),
]


@pytest.mark.parametrize(
    ("prompt", "expected"), EXAMPLES, ids=[f"e{i:02d}" for i in range(len(EXAMPLES))]
)
def test_a_prompt_falls_in_the_categories_it_is_about(
    prompt: str, expected: tuple[str, ...]
) -> None:
    assert classify(prompt) == expected


def test_a_follow_up_is_multi_turn() -> None:
    assert classify("And what about Brazil?", turn_index=2) == ("multi_turn",)


def test_a_long_prompt_is_a_longer_query() -> None:
    assert "longer_query" in classify("Here is my essay. " + "word " * 600)
    assert "longer_query" not in classify("word " * 100)


def test_the_same_prompt_asked_again_has_the_same_key() -> None:
    key = prompt_key("What is the capital of Australia?")

    assert prompt_key("  what is the CAPITAL of   Australia ") == key
    assert prompt_key("What is the capital of Austria?") != key
    assert prompt_key("ｗｈａｔ is the capital of australia???") == key  # full-width, NFKC


def test_a_prompts_key_holds_its_images_in_order() -> None:
    words = "What is in this picture?"

    assert prompt_key(words, ()) == prompt_key(words)
    assert prompt_key(words, ["a" * 64]) != prompt_key(words)
    assert prompt_key(words, ["a" * 64]) == prompt_key("what is in this picture", ["a" * 64])
    assert prompt_key(words, ["a" * 64, "b" * 64]) != prompt_key(words, ["b" * 64, "a" * 64])
    assert prompt_key("", ["a" * 64]) != prompt_key("", ["b" * 64])
