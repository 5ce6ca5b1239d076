"""Expert review queues: how far each is, and how much its reviewers agree. Pure.

A queue holds rounds (items); each item needs ``k`` verdicts from the queue's reviewers, one per
reviewer. A reviewer's verdict is one of the arena's votes; a ``skip`` passes the item on (it
is not a verdict the agreement counts, and the reviewer is not asked again).

Agreement is measured on the items with ``k`` verdicts other than skips (``k`` ≥ 2):

* **Fleiss' κ** over the four outcomes (A better, B better, both good, both bad), with a 95 %
  percentile interval from resampling the items (``RESAMPLES`` times, a fixed seed, so the same
  verdicts give the same interval);
* each reviewer's agreement with the **majority of the others** on the items they reviewed (an
  item where the others tie has no majority and is left out), with the **judge** (its verdict on
  the round, where there is one) and with the **people** (the round's vote, if a person cast
  one);
* the items where the reviewers **split most** (lowest share of agreeing pairs), for discussion.
"""

from __future__ import annotations

import random
from collections import Counter
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from arena_api.core.sides import SKIP

__all__ = [
    "OUTCOMES",
    "RESAMPLES",
    "Agreement",
    "ItemVerdicts",
    "ReviewerAgreement",
    "Share",
    "Split",
    "fleiss_kappa",
    "queue_agreement",
]

#: The outcomes a verdict can have, in the order of their keys (1-4; 5 is a skip).
OUTCOMES = ("left", "right", "both_good", "both_bad")
RESAMPLES = 1000
_SPLITS = 10


@dataclass(frozen=True)
class ItemVerdicts:
    """One item: its reviewers' verdicts (skips left out), and the judge's and the people's
    votes on its round, if any."""

    item_id: str
    position: int
    votes: Mapping[str, str]  # reviewer id -> vote
    judge: str | None = None
    people: str | None = None


@dataclass(frozen=True)
class Share:
    agreed: int
    of: int

    @property
    def rate(self) -> float | None:
        return None if self.of == 0 else self.agreed / self.of


@dataclass(frozen=True)
class ReviewerAgreement:
    reviewer_id: str
    verdicts: int
    with_majority: Share
    with_judge: Share
    with_people: Share


@dataclass(frozen=True)
class Split:
    item_id: str
    position: int
    #: The share of reviewer pairs that agree on it (1: all alike).
    agreement: float
    votes: Mapping[str, int]  # outcome -> reviewers


@dataclass(frozen=True)
class Agreement:
    items: int  # items with k verdicts, the ones κ counts
    kappa: float | None
    kappa_low: float | None
    kappa_high: float | None
    observed: float | None  # the mean share of agreeing pairs
    reviewers: tuple[ReviewerAgreement, ...]
    splits: tuple[Split, ...]


def _counts(votes: Mapping[str, str]) -> list[int]:
    tally = Counter(votes.values())
    return [tally[o] for o in OUTCOMES]


def _pair_share(row: Sequence[int]) -> float:
    n = sum(row)
    return (sum(c * c for c in row) - n) / (n * (n - 1))


def fleiss_kappa(rows: Sequence[Sequence[int]]) -> float | None:
    """Fleiss' κ of ``rows`` (per item, how many raters chose each category; the same number
    of raters, at least two, for every item). ``None`` when it is undefined: no items, or every
    rating in one category (chance agreement is then 1)."""
    if not rows:
        return None
    n = sum(rows[0])
    if n < 2 or any(sum(r) != n for r in rows):
        raise ValueError("every item needs the same number of raters, at least two")
    total = n * len(rows)
    columns = [sum(r[j] for r in rows) / total for j in range(len(rows[0]))]
    expected = sum(p * p for p in columns)
    if expected >= 1.0:
        return None
    observed = sum(_pair_share(r) for r in rows) / len(rows)
    return (observed - expected) / (1.0 - expected)


def _interval(rows: list[list[int]], seed: int) -> tuple[float | None, float | None]:
    if len(rows) < 2:
        return None, None
    rng = random.Random(seed)
    kappas = []
    for _ in range(RESAMPLES):
        kappa = fleiss_kappa([rows[rng.randrange(len(rows))] for _ in rows])
        if kappa is not None:
            kappas.append(kappa)
    if len(kappas) < RESAMPLES // 2:
        return None, None
    kappas.sort()
    return kappas[int(0.025 * (len(kappas) - 1))], kappas[int(0.975 * (len(kappas) - 1))]


def _majority(votes: Sequence[str]) -> str | None:
    ranked = Counter(votes).most_common(2)
    if not ranked or (len(ranked) == 2 and ranked[0][1] == ranked[1][1]):
        return None
    return ranked[0][0]


def queue_agreement(items: Sequence[ItemVerdicts], k: int, *, seed: int = 0) -> Agreement:
    """The agreement of a queue whose items need ``k`` verdicts (skips already left out)."""
    full = [i for i in items if len(i.votes) >= k >= 2]
    rows = [_counts(dict(list(i.votes.items())[:k])) for i in full]
    kappa = fleiss_kappa(rows)
    low, high = _interval(rows, seed) if kappa is not None else (None, None)
    reviewers: dict[str, list[int]] = {}
    for item in items:
        for reviewer, vote in item.votes.items():
            tally = reviewers.setdefault(reviewer, [0] * 7)
            tally[0] += 1
            others = [v for r, v in item.votes.items() if r != reviewer]
            majority = _majority(others)
            if majority is not None:
                tally[1] += vote == majority
                tally[2] += 1
            if item.judge is not None and item.judge != SKIP:
                tally[3] += vote == item.judge
                tally[4] += 1
            if item.people is not None and item.people != SKIP:
                tally[5] += vote == item.people
                tally[6] += 1
    splits = sorted(
        (
            Split(i.item_id, i.position, _pair_share(r), dict(zip(OUTCOMES, r, strict=True)))
            for i, r in zip(full, rows, strict=True)
        ),
        key=lambda s: (s.agreement, s.position),
    )
    return Agreement(
        items=len(full),
        kappa=kappa,
        kappa_low=low,
        kappa_high=high,
        observed=None if not rows else sum(_pair_share(r) for r in rows) / len(rows),
        reviewers=tuple(
            ReviewerAgreement(
                reviewer, t[0], Share(t[1], t[2]), Share(t[3], t[4]), Share(t[5], t[6])
            )
            for reviewer, t in sorted(reviewers.items())
        ),
        splits=tuple(s for s in splits if s.agreement < 1.0)[:_SPLITS],
    )
