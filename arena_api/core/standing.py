"""Where a rated model stands, read with its uncertainty: the ranks its interval allows, and
whether its rating is settled or still provisional.

A model's 95 % interval overlaps those of the models it cannot yet be told apart from. Within
one rating component (ratings of different components are not comparable):

* ``best``  = 1 + the models whose interval lies wholly above this one's (the seed's ``rank``);
* ``worst`` = the component's size − the models whose interval lies wholly below.

A model is **provisional** while the board cannot be read as certain about it: it has no
rating yet (``unrated``), fewer decided votes than ``min_votes`` (``few_votes``, LMArena's
"preliminary"), or an interval wider than ``max_interval`` points (``wide_interval``). The first
reason that holds is the one given. Provisional models sort below the settled ones.
"""

from __future__ import annotations

import uuid
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Literal

__all__ = [
    "DEFAULT_RULE",
    "ProvisionalReason",
    "ProvisionalRule",
    "RankRange",
    "RatedRow",
    "rank_ranges",
]

ProvisionalReason = Literal["unrated", "few_votes", "wide_interval"]


@dataclass(frozen=True)
class RankRange:
    best: int
    worst: int


@dataclass(frozen=True)
class RatedRow:
    """What the ranks need of one model: its id, component and interval (``None``: unrated)."""

    model_id: uuid.UUID
    component: int | None
    lower: float | None
    upper: float | None


def rank_ranges(rows: Iterable[RatedRow]) -> dict[uuid.UUID, RankRange]:
    """The ranks each rated model's interval allows within its component; unrated models
    (no component or interval) get none."""
    rated = [
        (r.model_id, r.component, r.lower, r.upper)
        for r in rows
        if r.component is not None and r.lower is not None and r.upper is not None
    ]
    ranges = {}
    for model_id, component, lower, upper in rated:
        peers = [(lo, hi) for _, c, lo, hi in rated if c == component]
        above = sum(1 for lo, _ in peers if lo > upper)
        below = sum(1 for _, hi in peers if hi < lower)
        ranges[model_id] = RankRange(best=1 + above, worst=len(peers) - below)
    return ranges


@dataclass(frozen=True)
class ProvisionalRule:
    """``ARENA_PROVISIONAL_VOTES`` and ``ARENA_PROVISIONAL_CI``."""

    min_votes: int = 30
    max_interval: float = 200.0

    def reason(
        self, votes: int, lower: float | None, upper: float | None
    ) -> ProvisionalReason | None:
        """Why a model with ``votes`` decided votes and this interval is provisional, or
        ``None`` when its rating is settled."""
        if lower is None or upper is None:
            return "unrated"
        if votes < self.min_votes:
            return "few_votes"
        if upper - lower > self.max_interval:
            return "wide_interval"
        return None

    def explain(
        self, reason: ProvisionalReason, votes: int, lower: float | None, upper: float | None
    ) -> str:
        """``reason`` in words, for a tooltip or a caption."""
        if reason == "few_votes":
            return f"provisional: {votes} of the {self.min_votes} votes a settled rating needs"
        if reason == "wide_interval" and lower is not None and upper is not None:
            return (
                f"provisional: its 95% interval spans {upper - lower:.0f} points, "
                f"more than {self.max_interval:.0f}"
            )
        return "provisional: not rated yet"


DEFAULT_RULE = ProvisionalRule()
