from __future__ import annotations

import pytest

from arena_api.core.populations import (
    HISTORY_POPULATIONS,
    OTHER_POPULATIONS,
    POPULATIONS,
    VOTE_METHODS,
    category_board,
    is_category_board,
    rated_population,
)


def test_each_population_counts_its_voters() -> None:
    assert dict(VOTE_METHODS) == {
        "human": ("human",),
        "judge": ("judge",),
        "all": ("human", "judge"),
        "reviewer": (),  # review queues' verdicts, not votes of preferences
    }
    assert tuple(VOTE_METHODS) == POPULATIONS


def test_the_stored_boards_beside_peoples_are_named_once() -> None:
    assert OTHER_POPULATIONS == ("with_named", "judge", "all", "unfiltered", "reviewer")
    assert set(HISTORY_POPULATIONS) <= set(OTHER_POPULATIONS)


def test_a_slices_board_is_named_after_it() -> None:
    assert category_board("language:de") == "category:language:de"
    assert is_category_board("category:coding") and not is_category_board("judge")


@pytest.mark.parametrize(
    ("votes", "category", "stored"),
    [
        ("human", None, "human"),
        ("judge", None, "judge"),
        ("human", "coding", "category:coding"),
        ("all", "coding", None),
    ],
)
def test_a_read_shows_the_fit_of_its_population_or_of_peoples_slice(
    votes: str, category: str | None, stored: str | None
) -> None:
    assert rated_population(votes, category) == stored
