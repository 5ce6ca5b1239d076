"""How a vote maps to sides: the one statement of the rule, for the server and the rating process.

A vote (``preferences.vote``) is made on a round with one model in slot A (shown left) and one in
slot B. ``left`` picks slot A, ``right`` slot B; ``both_good`` and ``both_bad`` are ties; ``skip``
compares nothing. The rating process and the summaries count a pair of models canonically, as
``(model_lo, model_hi)`` with the smaller id first, so a decisive vote is a win of the ``lo`` or
the ``hi`` side depending on which slot the ``lo`` model sat in:

=============  ==================  ==================
vote           slot A holds lo     slot B holds lo
=============  ==================  ==================
``left``       lo wins             hi wins
``right``      hi wins             lo wins
``both_good``  tie                 tie
``both_bad``   tie                 tie
``skip``       not compared        not compared
=============  ==================  ==================

The summary tables count each label in its own column (``OUTCOME_COUNTERS``: ``left_wins``,
``right_wins``, ... since ``left``/``right`` are SQL keywords). SQL that needs the rule renders it
from ``sql_side_wins`` (one vote) and ``sql_side_counter`` (the per-label counters) instead of
writing it out.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable, Mapping
from typing import Literal

__all__ = [
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
]

Vote = Literal["left", "right", "both_good", "both_bad", "skip"]
#: Every label ``preferences.vote`` may hold, in this order; anything else is rejected.
VOTES: tuple[Vote, ...] = ("left", "right", "both_good", "both_bad", "skip")
#: The slot each decisive vote picks (the winner's).
SLOT_PICKED: Mapping[str, Literal["A", "B"]] = {"left": "A", "right": "B"}
#: The votes that pick a winner.
DECISIVE_VOTES: frozenset[str] = frozenset(SLOT_PICKED)
#: The votes that are a tie (a draw for the fit, half a point each).
TIE_VOTES: tuple[Vote, ...] = ("both_good", "both_bad")
#: The vote that compares nothing.
SKIP: Vote = "skip"
#: The summary tables' counter of each vote label.
OUTCOME_COUNTERS: Mapping[str, str] = {
    "left": "left_wins",
    "right": "right_wins",
    "both_good": "both_good",
    "both_bad": "both_bad",
    "skip": "skips",
}

#: A side of a canonical pair: the model with the smaller id (``lo``) or the larger (``hi``).
Side = Literal["lo", "hi"]


def winner_slot(vote: str | None) -> Literal["A", "B"] | None:
    """The slot a vote made the winner: ``left`` → A, ``right`` → B, anything else none."""
    return SLOT_PICKED.get(vote) if vote is not None else None


def lo_holds_slot_a(slot_a_id: uuid.UUID, slot_b_id: uuid.UUID) -> bool:
    """Whether slot A holds the pair's ``lo`` model (``UUID`` orders as PostgreSQL's ``uuid``)."""
    return slot_a_id < slot_b_id


def side_winning_vote(side: Side, *, a_is_lo: bool) -> Vote:
    """The vote that makes ``side`` the winner, given which slot holds ``lo``."""
    in_slot_a = (side == "lo") == a_is_lo
    slot = "A" if in_slot_a else "B"
    return next(v for v in VOTES if SLOT_PICKED.get(v) == slot)


def winning_side(vote: str, *, a_is_lo: bool) -> Side | None:
    """The side ``vote`` makes the winner (none for a tie or a skip).

    Raises:
        ValueError: ``vote`` is not a vote label.
    """
    if vote not in VOTES:
        raise ValueError(f"unknown vote {vote!r}: expected one of {VOTES}")
    for side in ("lo", "hi"):
        if vote == side_winning_vote(side, a_is_lo=a_is_lo):
            return side
    return None


def side_counter(side: Side, *, a_is_lo: bool) -> str:
    """The summary counter (``left_wins`` or ``right_wins``) that holds ``side``'s wins."""
    return OUTCOME_COUNTERS[side_winning_vote(side, a_is_lo=a_is_lo)]


# -- the same rule as SQL text, for the statements written as text --------------------------------


def sql_labels(labels: Iterable[str]) -> str:
    """Vote labels as an SQL list: ``'both_good', 'both_bad'``."""
    return ", ".join(f"'{label}'" for label in labels)


def _a_is_lo(slot_a: str, slot_b: str) -> str:
    return f"{slot_a} < {slot_b}"


def sql_side_wins(
    side: Side,
    *,
    vote: str = "vote",
    slot_a: str = "slot_a_model_id",
    slot_b: str = "slot_b_model_id",
) -> str:
    """A boolean SQL expression: the vote in column ``vote`` makes ``side`` the winner."""
    a_is_lo = _a_is_lo(slot_a, slot_b)
    return (
        f"(({a_is_lo} AND {vote} = '{side_winning_vote(side, a_is_lo=True)}')"
        f" OR (NOT ({a_is_lo}) AND {vote} = '{side_winning_vote(side, a_is_lo=False)}'))"
    )


def sql_side_counter(
    side: Side,
    *,
    slot_a: str = "slot_a_model_id",
    slot_b: str = "slot_b_model_id",
    prefix: str = "",
) -> str:
    """An SQL expression: ``side``'s wins in a summary row of ordered (slot A, slot B) counters
    (``prefix`` qualifies the counters, e.g. ``c.``)."""
    return (
        f"CASE WHEN {_a_is_lo(slot_a, slot_b)}"
        f" THEN {prefix}{side_counter(side, a_is_lo=True)}"
        f" ELSE {prefix}{side_counter(side, a_is_lo=False)} END"
    )


def sql_winner_slot(vote: str = "vote", *, a: str = "'A'", b: str = "'B'") -> str:
    """An SQL expression: for the slot the vote in column ``vote`` made the winner, ``a`` or
    ``b`` (by default the slot's name, ``A`` or ``B``; an expression such as the slot's model
    column gives the winner's model); NULL for a tie or a skip."""
    value = {"A": a, "B": b}
    picked = " ".join(f"WHEN '{label}' THEN {value[slot]}" for label, slot in SLOT_PICKED.items())
    return f"CASE {vote} {picked} END"
