"""A leaderboard's board: whose votes, which prompts, which filters, named rounds or not.

``Board`` replaces the four loose flags a leaderboard read used to carry (``votes``,
``category``, ``filters``, ``include_named``). It is built and checked once, at the edge
(``parse_board`` from the query parameters, or the constructor in the UI and the rating
process), and tells every layer the same things: which votes count (``methods``), and under
which stored population its fit is found (``stored_population``).

=========================  ==========================  =========================================
board                      query parameters            stored fit
=========================  ==========================  =========================================
people's blind votes       (none)                      ``model_ratings``, ``model_style_ratings``
with named rounds          ``include=named``           ``with_named`` (style: the blind one)
without the filters        ``filters=off``             ``unfiltered`` (no style)
the judge's, everyone's    ``votes=judge|all``         ``judge``, ``all`` (no style)
a slice of prompts         ``category=coding``         ``category:coding`` (people's; no style)
=========================  ==========================  =========================================

``include=named`` and ``filters=off`` apply to people's votes on every prompt only, and not
together.
"""

from __future__ import annotations

from dataclasses import dataclass

from arena_api.core.categories import CATEGORIES, check_slice
from arena_api.core.errors import InvalidRequest
from arena_api.core.populations import (
    HUMAN,
    POPULATIONS,
    REVIEWER,
    UNFILTERED,
    VOTE_METHODS,
    WITH_NAMED,
    Method,
    Population,
    rated_population,
)

__all__ = ["DEFAULT_BOARD", "Board", "check_category", "check_votes", "parse_board"]


def check_votes(votes: str) -> Population:
    """``votes`` if it names a population of votes.

    Raises:
        InvalidRequest: it does not.
    """
    if votes not in POPULATIONS:
        raise InvalidRequest(
            "votes must be human, judge or all", details={"votes": ["must be human, judge or all"]}
        )
    return votes


def check_category(category: str | None) -> str | None:
    """``category`` if it names a slice of prompts (or is ``None``: every prompt).

    Raises:
        InvalidRequest: anything else.
    """
    if category is None or check_slice(category) is not None:
        return category
    allowed = ", ".join(CATEGORIES)
    raise InvalidRequest(
        f"category must be one of {allowed}, or language:<ISO 639 code>",
        details={"category": [f"must be one of {allowed}, or language:<code> (language:en)"]},
    )


@dataclass(frozen=True)
class Board:
    """One leaderboard: a population of votes, cut to a slice of prompts or not, with the
    filters before the fit or without, with the named rounds' votes or without.

    Raises:
        InvalidRequest: an unknown population or slice, or ``named`` or ``filters=False`` with
            another population or a slice (or with each other).
    """

    #: Whose votes: people's (``human``), the judge model's (``judge``), or both (``all``).
    population: Population = HUMAN
    #: A slice of prompts (a category, or ``language:<code>``); ``None``: every prompt.
    category: str | None = None
    #: Leave out the votes the identity-leak filter and the duplicate-prompt cap dropped.
    filters: bool = True
    #: Rate the named side-by-side rounds' votes with the blind ones.
    named: bool = False

    def __post_init__(self) -> None:
        check_votes(self.population)
        check_category(self.category)
        if self.named and not self.is_every_vote_of_people:
            raise InvalidRequest(
                "include=named applies to people's votes on every prompt only",
                details={"include": ["only with votes=human and no category"]},
            )
        if self.population == REVIEWER and self.category is not None:
            raise InvalidRequest(
                "votes=reviewer is a board of every reviewed prompt, not of a slice",
                details={"category": ["not with votes=reviewer"]},
            )
        if not self.filters and (self.named or not self.is_every_vote_of_people):
            raise InvalidRequest(
                "filters=off applies to people's blind votes on every prompt only",
                details={"filters": ["only with votes=human, no category and no include"]},
            )

    @property
    def is_every_vote_of_people(self) -> bool:
        """People's votes on every prompt (the board the named rounds and the filters vary)."""
        return self.population == HUMAN and self.category is None

    @property
    def methods(self) -> tuple[Method, ...]:
        """Who cast the votes it counts."""
        return VOTE_METHODS[self.population]

    @property
    def stored_population(self) -> str | None:
        """The population its fit is stored under (``human``: ``model_ratings``); ``None`` for
        a board no fit is made for (another population cut to a slice)."""
        if self.named:
            return WITH_NAMED
        if not self.filters:
            return UNFILTERED
        return rated_population(self.population, self.category)

    @property
    def is_blind_variant(self) -> bool:
        """A variant of people's blind board (named rounds added, or unfiltered): while its own
        fit has no rows, nothing named or filtered exists and the blind board stands for it."""
        return self.named or not self.filters

    @property
    def has_style(self) -> bool:
        """Whether the style-controlled ratings go with it (they are fitted to people's blind,
        filtered votes on every prompt; the named rounds' board shows them beside its own)."""
        return self.is_every_vote_of_people and self.filters


#: People's blind votes on every prompt, filtered: the board shown unless another is asked for.
DEFAULT_BOARD = Board()


def parse_board(
    *,
    include: str | None = None,
    votes: str = HUMAN,
    category: str | None = None,
    filters: str = "on",
) -> Board:
    """The board the query parameters ``include``, ``votes``, ``category`` and ``filters`` ask
    for (each as sent, ``None`` or its default when absent).

    Raises:
        InvalidRequest: ``include`` is not ``named``, ``filters`` not ``on`` or ``off``, or the
            board is not one (see ``Board``).
    """
    if include not in (None, "named"):
        raise InvalidRequest(
            "include must be 'named' or absent", details={"include": ["must be 'named'"]}
        )
    if filters not in ("on", "off"):
        raise InvalidRequest("filters must be on or off", details={"filters": ["on or off"]})
    return Board(
        population=check_votes(votes),
        category=check_category(category),
        filters=filters == "on",
        named=include == "named",
    )
