from __future__ import annotations

import sqlite3
import uuid

import pytest

from arena_api.core import sides
from arena_api.core.sides import (
    DECISIVE_VOTES,
    OUTCOME_COUNTERS,
    TIE_VOTES,
    VOTES,
    lo_holds_slot_a,
    side_counter,
    sql_side_counter,
    sql_side_wins,
    sql_winner_slot,
    winner_slot,
    winning_side,
)

# (vote, slot A holds lo) -> the side that wins
EXPECTED = {
    ("left", True): "lo",
    ("left", False): "hi",
    ("right", True): "hi",
    ("right", False): "lo",
    ("both_good", True): None,
    ("both_good", False): None,
    ("both_bad", True): None,
    ("both_bad", False): None,
    ("skip", True): None,
    ("skip", False): None,
}
CASES = [
    pytest.param(vote, a_is_lo, side, id=f"{vote}-{'a' if a_is_lo else 'b'}-holds-lo")
    for (vote, a_is_lo), side in EXPECTED.items()
]


def test_exports_the_rule_and_nothing_else() -> None:
    assert set(sides.__all__) == {
        "DECISIVE_VOTES",
        "OUTCOME_COUNTERS",
        "SKIP",
        "SLOT_PICKED",
        "TIE_VOTES",
        "VOTES",
        "Side",
        "Vote",
        "lo_holds_slot_a",
        "side_counter",
        "side_winning_vote",
        "sql_labels",
        "sql_side_counter",
        "sql_side_wins",
        "sql_winner_slot",
        "winner_slot",
        "winning_side",
    }


@pytest.mark.parametrize(("vote", "a_is_lo", "side"), CASES)
def test_each_vote_wins_the_side_whose_slot_it_picked(
    vote: str, a_is_lo: bool, side: str | None
) -> None:
    assert winning_side(vote, a_is_lo=a_is_lo) == side


@pytest.mark.parametrize(
    ("vote", "slot"),
    [("left", "A"), ("right", "B"), ("both_good", None), ("both_bad", None), ("skip", None)],
)
def test_a_decisive_vote_picks_a_slot_and_no_other_vote_does(vote: str, slot: str | None) -> None:
    assert winner_slot(vote) == slot


def test_every_label_is_decisive_a_tie_or_the_skip() -> None:
    assert sorted(VOTES) == sorted([*DECISIVE_VOTES, *TIE_VOTES, "skip"])


def test_an_unknown_vote_is_rejected_rather_than_guessed() -> None:
    with pytest.raises(ValueError, match="unknown vote"):
        winning_side("draw", a_is_lo=True)


def test_slot_a_holds_lo_when_its_id_sorts_first_as_in_postgresql() -> None:
    small, large = uuid.UUID(int=1), uuid.UUID("ff000000-0000-0000-0000-000000000000")

    assert (lo_holds_slot_a(small, large), lo_holds_slot_a(large, small)) == (True, False)


@pytest.mark.parametrize(
    ("a_is_lo", "lo", "hi"),
    [(True, "left_wins", "right_wins"), (False, "right_wins", "left_wins")],
)
def test_a_sides_wins_are_counted_under_its_slots_counter(a_is_lo: bool, lo: str, hi: str) -> None:
    assert (side_counter("lo", a_is_lo=a_is_lo), side_counter("hi", a_is_lo=a_is_lo)) == (lo, hi)


def test_every_label_has_its_own_summary_counter() -> None:
    assert list(OUTCOME_COUNTERS) == list(VOTES)
    assert len(set(OUTCOME_COUNTERS.values())) == len(VOTES)


def _evaluate(sql: str, row: dict[str, object]) -> object:
    """``sql`` evaluated over one row (SQLite reads these expressions as PostgreSQL does)."""
    with sqlite3.connect(":memory:") as db:
        columns = ", ".join(f":{name} AS {name}" for name in row)
        return db.execute(f"SELECT {sql} FROM (SELECT {columns})", row).fetchone()[0]


@pytest.mark.parametrize(("vote", "a_is_lo", "side"), CASES)
def test_the_sql_of_one_vote_agrees_with_the_rule(
    vote: str, a_is_lo: bool, side: str | None
) -> None:
    row = {
        "vote": vote,
        "slot_a_model_id": 1 if a_is_lo else 2,
        "slot_b_model_id": 2 if a_is_lo else 1,
    }

    won = {s: bool(_evaluate(sql_side_wins(s), row)) for s in ("lo", "hi")}

    assert won == {"lo": side == "lo", "hi": side == "hi"}


@pytest.mark.parametrize("a_is_lo", [True, False], ids=["a-holds-lo", "b-holds-lo"])
def test_the_sql_of_the_counters_gives_each_side_its_slots_wins(a_is_lo: bool) -> None:
    row = {
        "slot_a_model_id": 1 if a_is_lo else 2,
        "slot_b_model_id": 2 if a_is_lo else 1,
        "left_wins": 7,
        "right_wins": 3,
    }

    wins = {s: _evaluate(sql_side_counter(s), row) for s in ("lo", "hi")}

    assert wins == ({"lo": 7, "hi": 3} if a_is_lo else {"lo": 3, "hi": 7})


@pytest.mark.parametrize("vote", VOTES)
def test_the_sql_of_the_winner_slot_agrees_with_the_rule(vote: str) -> None:
    assert _evaluate(sql_winner_slot(), {"vote": vote}) == winner_slot(vote)
