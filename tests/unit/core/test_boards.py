from __future__ import annotations

import pytest

from arena_api.core import boards
from arena_api.core.boards import DEFAULT_BOARD, Board, parse_board
from arena_api.core.errors import InvalidRequest


def _error(make: object) -> tuple[str, dict[str, list[str]] | None]:
    with pytest.raises(InvalidRequest) as caught:
        make()  # type: ignore[operator]
    return caught.value.message, caught.value.details


def test_exports_the_board_and_its_checks() -> None:
    assert set(boards.__all__) == {
        "DEFAULT_BOARD",
        "Board",
        "check_category",
        "check_votes",
        "parse_board",
    }


def test_the_default_board_is_peoples_blind_filtered_votes_on_every_prompt() -> None:
    assert DEFAULT_BOARD == Board(population="human", category=None, filters=True, named=False)


@pytest.mark.parametrize(
    ("board", "stored", "methods", "style"),
    [
        pytest.param(Board(), "human", ("human",), True, id="blind"),
        pytest.param(Board(named=True), "with_named", ("human",), True, id="named"),
        pytest.param(Board(filters=False), "unfiltered", ("human",), False, id="unfiltered"),
        pytest.param(Board(population="judge"), "judge", ("judge",), False, id="judge"),
        pytest.param(Board(population="all"), "all", ("human", "judge"), False, id="all"),
        pytest.param(Board(category="coding"), "category:coding", ("human",), False, id="slice"),
        pytest.param(
            Board(category="language:de"), "category:language:de", ("human",), False, id="lang"
        ),
        pytest.param(Board(population="judge", category="math"), None, ("judge",), False, id="cut"),
    ],
)
def test_a_board_names_its_stored_fit_its_voters_and_whether_style_goes_with_it(
    board: Board, stored: str | None, methods: tuple[str, ...], style: bool
) -> None:
    assert (board.stored_population, board.methods, board.has_style) == (stored, methods, style)


def test_only_the_named_and_unfiltered_boards_fall_back_to_the_blind_one() -> None:
    fallbacks = [
        b.is_blind_variant
        for b in (Board(), Board(named=True), Board(filters=False), Board(population="all"))
    ]

    assert fallbacks == [False, True, True, False]


def test_a_board_is_immutable() -> None:
    with pytest.raises(AttributeError):
        DEFAULT_BOARD.named = True  # type: ignore[misc]


@pytest.mark.parametrize(
    ("fields", "message", "details"),
    [
        pytest.param(
            {"population": "robots"},
            "votes must be human, judge or all",
            {"votes": ["must be human, judge or all"]},
            id="population",
        ),
        pytest.param(
            {"named": True, "population": "judge"},
            "include=named applies to people's votes on every prompt only",
            {"include": ["only with votes=human and no category"]},
            id="named-judge",
        ),
        pytest.param(
            {"named": True, "category": "coding"},
            "include=named applies to people's votes on every prompt only",
            {"include": ["only with votes=human and no category"]},
            id="named-slice",
        ),
        pytest.param(
            {"filters": False, "named": True},
            "filters=off applies to people's blind votes on every prompt only",
            {"filters": ["only with votes=human, no category and no include"]},
            id="unfiltered-named",
        ),
        pytest.param(
            {"filters": False, "population": "all"},
            "filters=off applies to people's blind votes on every prompt only",
            {"filters": ["only with votes=human, no category and no include"]},
            id="unfiltered-all",
        ),
        pytest.param(
            {"filters": False, "category": "math"},
            "filters=off applies to people's blind votes on every prompt only",
            {"filters": ["only with votes=human, no category and no include"]},
            id="unfiltered-slice",
        ),
    ],
)
def test_a_board_that_is_not_one_is_rejected_once_when_built(
    fields: dict[str, object], message: str, details: dict[str, list[str]]
) -> None:
    assert _error(lambda: Board(**fields)) == (message, details)  # type: ignore[arg-type]


def test_an_unknown_slice_is_rejected() -> None:
    message, details = _error(lambda: Board(category="cooking"))

    assert message.startswith("category must be one of coding")
    assert details is not None and list(details) == ["category"]


@pytest.mark.parametrize(
    ("params", "board"),
    [
        pytest.param({}, Board(), id="none"),
        pytest.param({"include": "named"}, Board(named=True), id="include"),
        pytest.param({"filters": "off"}, Board(filters=False), id="filters"),
        pytest.param({"votes": "all"}, Board(population="all"), id="votes"),
        pytest.param({"category": "language:en"}, Board(category="language:en"), id="category"),
    ],
)
def test_the_query_parameters_make_the_board_they_name(
    params: dict[str, str], board: Board
) -> None:
    assert parse_board(**params) == board


@pytest.mark.parametrize(
    ("params", "message", "field"),
    [
        pytest.param({"include": "all"}, "include must be 'named' or absent", "include", id="i"),
        pytest.param({"filters": "no"}, "filters must be on or off", "filters", id="f"),
        # A bad include is reported before a bad population, as the route always did.
        pytest.param(
            {"include": "x", "votes": "x"}, "include must be 'named' or absent", "include", id="o"
        ),
    ],
)
def test_a_bad_query_parameter_is_reported_by_name(
    params: dict[str, str], message: str, field: str
) -> None:
    got, details = _error(lambda: parse_board(**params))

    assert (got, list(details or {})) == (message, [field])
