"""Whose votes a board counts, and the names its fits are stored under.

A vote is cast by a person or a judge model (``preferences.method``: ``human`` or ``judge``).
A read counts one *population* of votes (``?votes=``): people's (the default), the judge's, or
both (``all``). The rating process fits several boards and stores each under a name:

==========================  ======================================================================
stored population           votes fitted
==========================  ======================================================================
``human``                   people's blind votes (``model_ratings``; its history says ``human``)
``with_named``              people's blind votes and those of named side-by-side rounds
``unfiltered``              people's blind votes with the identity-leak and duplicate-prompt
                            filters' votes kept in
``judge``, ``all``          the judge model's votes; everyone's
``reviewer``                the expert reviewers' verdicts in review queues (skips apart)
``category:<slice>``        people's blind votes on one slice of prompts (``coding``,
                            ``language:de``)
==========================  ======================================================================
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Literal

__all__ = [
    "ALL",
    "CATEGORY_BOARD",
    "HISTORY_POPULATIONS",
    "HUMAN",
    "JUDGE",
    "METHODS",
    "OTHER_POPULATIONS",
    "POPULATIONS",
    "REVIEWER",
    "UNFILTERED",
    "VOTE_METHODS",
    "WITH_NAMED",
    "Method",
    "Population",
    "category_board",
    "is_category_board",
    "rated_population",
]

#: Who cast a vote (``preferences.method``).
Method = Literal["human", "judge"]
#: Whose votes a read counts (``?votes=``): people's (the default), a judge model's, both, or
#: the expert reviewers' verdicts in review queues (``reviewer``: not votes of ``preferences``).
Population = Literal["human", "judge", "all", "reviewer"]

HUMAN: Literal["human"] = "human"
JUDGE: Literal["judge"] = "judge"
ALL: Literal["all"] = "all"
REVIEWER: Literal["reviewer"] = "reviewer"
METHODS: tuple[Method, ...] = (HUMAN, JUDGE)
POPULATIONS: tuple[Population, ...] = (HUMAN, JUDGE, ALL, REVIEWER)
#: The methods each population counts.
VOTE_METHODS: Mapping[str, tuple[Method, ...]] = {
    HUMAN: (HUMAN,),
    JUDGE: (JUDGE,),
    ALL: (HUMAN, JUDGE),
    REVIEWER: (),  # the reviewers' verdicts live in review_verdicts, not in preferences
}

#: People's blind votes with the named rounds' votes.
WITH_NAMED = "with_named"
#: People's blind votes with the votes the filters before the fit left out kept in.
UNFILTERED = "unfiltered"
#: The boards of ``model_population_ratings`` besides the slices', in the order they are fitted.
OTHER_POPULATIONS: tuple[str, ...] = (WITH_NAMED, JUDGE, ALL, UNFILTERED, REVIEWER)
#: The populations whose boards keep a history beside people's (``human``) and the slices'.
HISTORY_POPULATIONS: tuple[str, ...] = (JUDGE, ALL)
#: The prefix of a slice's board: ``category:coding``, ``category:language:de``.
CATEGORY_BOARD = "category:"


def category_board(slice_: str) -> str:
    """The stored population of ``slice_``'s board."""
    return CATEGORY_BOARD + slice_


def is_category_board(population: str) -> bool:
    """Whether ``population`` is a slice's board."""
    return population.startswith(CATEGORY_BOARD)


def rated_population(votes: str, category: str | None) -> str | None:
    """The stored population whose fit a read of ``votes`` cut to ``category`` shows: the
    population itself over every prompt (``human`` is ``model_ratings``), a slice's board for
    people's votes, and none for another population cut to a slice (slice boards are people's
    only)."""
    if category is None:
        return votes
    return category_board(category) if votes == HUMAN else None
