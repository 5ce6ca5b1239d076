r"""The anomaly screen: three tests per anonymous voting session, run before any fit.

Each session (``preferences.anonymous_session_id``) is tested against three null hypotheses of
honest voting. A session any test rejects at the Bonferroni level :math:`\alpha/3`
(``ANOMALY_ALPHA``, family-wise) is excluded from both the default and the style pass. Votes
without a session id cannot be attributed and are always kept.

============  ========================================================  =====================
Test          Null hypothesis and p-value                               Runs when
============  ========================================================  =====================
volume        votes :math:`n \sim \mathrm{Poisson}(\mu)`, :math:`\mu` the  :math:`n \ge 20`
              mean votes per session; :math:`p = P(X \ge n)`
position      decisive votes pick the left slot with probability 1/2      :math:`\ge 15` decisive
              (slots are randomised); exact two-sided binomial test
speed         the median gap between consecutive votes is at least the   :math:`\ge 8` votes
              floor (``ANOMALY_MIN_GAP_S``); sign test on the gaps below
              it, :math:`p = P(\mathrm{Bin}(m, \tfrac12) \ge k)`
============  ========================================================  =====================

The minimum-sample gates keep a short session from being flagged: a handful of votes cannot be
told apart from a quick, one-sided human. The sign test is the exact test of a median: under
the null each gap falls below the floor with probability at most 1/2, so :math:`k` fast gaps out
of :math:`m` are evidence of automated clicking only when :math:`k` is improbably large.
The session statistics are computed in PostgreSQL (``arena_rating.aggregate``); ``session_stats``
computes the same from arrays, for tests and benchmarks.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from enum import StrEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import binom, poisson

from arena_api.core.sides import VOTES
from arena_rating._errors import RatingInputError

__all__ = [
    "MIN_DECISIVE_FOR_POSITION",
    "MIN_VOTES_FOR_SPEED",
    "MIN_VOTES_FOR_VOLUME",
    "N_TESTS",
    "AnomalyReason",
    "ScreenResult",
    "SessionStats",
    "screen_sessions",
    "session_stats",
]

MIN_VOTES_FOR_VOLUME = 20
MIN_DECISIVE_FOR_POSITION = 15
MIN_VOTES_FOR_SPEED = 8
#: The Bonferroni divisor: three tests share the family-wise level.
N_TESTS = 3


class AnomalyReason(StrEnum):
    """Why a session was excluded."""

    VOLUME = "volume"
    POSITION = "position"
    SPEED = "speed"


@dataclass(frozen=True)
class SessionStats:
    """Per-session counts the tests need; every array has shape ``(n_sessions,)``.

    Attributes
    ----------
    session_ids : tuple of str
        The anonymous session ids.
    votes : NDArray[np.int64]
        All votes of the session, skips included.
    left, right : NDArray[np.int64]
        Decisive votes for slot A and for slot B.
    gaps : NDArray[np.int64]
        Gaps between consecutive votes (``votes - 1``).
    fast_gaps : NDArray[np.int64]
        Gaps shorter than the floor.
    median_gap_s : NDArray[np.float64]
        Median gap in seconds (NaN without gaps); reported, not tested.

    Raises
    ------
    RatingInputError
        Arrays differ in length or hold impossible counts.
    """

    session_ids: tuple[str, ...]
    votes: NDArray[np.int64]
    left: NDArray[np.int64]
    right: NDArray[np.int64]
    gaps: NDArray[np.int64]
    fast_gaps: NDArray[np.int64]
    median_gap_s: NDArray[np.float64]

    def __post_init__(self) -> None:
        n = len(self.session_ids)
        for name in ("votes", "left", "right", "gaps", "fast_gaps"):
            values = np.asarray(getattr(self, name), dtype=np.int64)
            if values.shape != (n,) or np.any(values < 0):
                raise RatingInputError(f"{name} must be {n} non-negative counts")
            object.__setattr__(self, name, values)
        median = np.asarray(self.median_gap_s, dtype=np.float64)
        if median.shape != (n,):
            raise RatingInputError(f"median_gap_s must have shape ({n},)")
        object.__setattr__(self, "median_gap_s", median)
        if np.any(self.left + self.right > self.votes) or np.any(self.fast_gaps > self.gaps):
            raise RatingInputError("decisive votes exceed votes, or fast gaps exceed gaps")

    @property
    def n_sessions(self) -> int:
        return len(self.session_ids)


def session_stats(
    session_ids: Sequence[str],
    timestamps_s: ArrayLike,
    votes: Sequence[str],
    *,
    min_gap_s: float,
) -> SessionStats:
    """Per-session statistics from individual votes (the array twin of the SQL query).

    Parameters
    ----------
    session_ids : sequence of str, length n_votes
        Session of each vote.
    timestamps_s : array_like of float, shape (n_votes,)
        When each vote was cast, in seconds.
    votes : sequence of str, length n_votes
        ``left``, ``right``, ``both_good``, ``both_bad`` or ``skip``.
    min_gap_s : float
        The speed floor.

    Raises
    ------
    RatingInputError
        Lengths differ or a vote label is unknown.
    """
    ids = np.asarray(session_ids, dtype=object)
    times = np.asarray(timestamps_s, dtype=np.float64)
    labels = np.asarray(votes, dtype=object)
    if not (ids.shape == times.shape == labels.shape) or ids.ndim != 1:
        raise RatingInputError("session_ids, timestamps_s and votes must have equal length")
    known = set(VOTES)
    if not set(labels.tolist()) <= known:
        raise RatingInputError(f"unknown vote labels: {sorted(set(labels.tolist()) - known)}")
    names, inverse = np.unique(ids.astype(str), return_inverse=True)
    k = names.size
    order = np.lexsort((times, inverse))
    s_sorted, t_sorted = inverse[order], times[order]
    same = s_sorted[1:] == s_sorted[:-1]
    gap_values = np.diff(t_sorted)[same]
    gap_owner = s_sorted[1:][same]
    medians = _group_medians(gap_values, gap_owner, k)
    return SessionStats(
        session_ids=tuple(names.tolist()),
        votes=np.bincount(inverse, minlength=k),
        left=np.bincount(inverse, labels == "left", k).astype(np.int64),
        right=np.bincount(inverse, labels == "right", k).astype(np.int64),
        gaps=np.bincount(gap_owner, minlength=k),
        fast_gaps=np.bincount(gap_owner, gap_values < min_gap_s, k).astype(np.int64),
        median_gap_s=medians,
    )


def _group_medians(
    values: NDArray[np.float64], groups: NDArray[np.intp], n_groups: int
) -> NDArray[np.float64]:
    """Median of ``values`` within each group id (NaN for an empty group), without a loop."""
    order = np.lexsort((values, groups))
    ordered = values[order]
    sizes = np.bincount(groups, minlength=n_groups)
    starts = np.cumsum(sizes) - sizes
    medians = np.full(n_groups, np.nan)
    has = sizes > 0
    low = starts[has] + (sizes[has] - 1) // 2
    high = starts[has] + sizes[has] // 2
    medians[has] = (ordered[low] + ordered[high]) / 2.0
    return medians


@dataclass(frozen=True)
class ScreenResult:
    """p-values and verdicts of the three tests; arrays of shape ``(n_sessions,)``.

    A test that did not run (sample below its gate) has p-value 1.
    """

    stats: SessionStats
    threshold: float
    p_volume: NDArray[np.float64]
    p_position: NDArray[np.float64]
    p_speed: NDArray[np.float64]

    @property
    def flagged_by(self) -> dict[AnomalyReason, NDArray[np.bool_]]:
        return {
            AnomalyReason.VOLUME: self.p_volume < self.threshold,
            AnomalyReason.POSITION: self.p_position < self.threshold,
            AnomalyReason.SPEED: self.p_speed < self.threshold,
        }

    @property
    def flagged(self) -> NDArray[np.bool_]:
        """Sessions any test rejected."""
        verdicts = self.flagged_by
        return (
            verdicts[AnomalyReason.VOLUME]
            | verdicts[AnomalyReason.POSITION]
            | verdicts[AnomalyReason.SPEED]
        )

    @property
    def flagged_ids(self) -> tuple[str, ...]:
        ids = self.stats.session_ids
        return tuple(ids[i] for i in np.flatnonzero(self.flagged))

    @property
    def excluded_votes(self) -> int:
        return int(self.stats.votes[self.flagged].sum())

    def reasons(self, index: int) -> tuple[AnomalyReason, ...]:
        """The tests that rejected session ``index``."""
        return tuple(reason for reason, hit in self.flagged_by.items() if hit[index])

    def count_by_reason(self) -> dict[AnomalyReason, int]:
        """Flagged sessions per test (a session can count under several)."""
        return {reason: int(hit.sum()) for reason, hit in self.flagged_by.items()}


def screen_sessions(stats: SessionStats, *, significance_level: float) -> ScreenResult:
    r"""Run the three tests on every session at the Bonferroni level :math:`\alpha / 3`.

    Parameters
    ----------
    stats : SessionStats
        Per-session counts.
    significance_level : float
        Family-wise level :math:`\alpha` (``ANOMALY_ALPHA``), in :math:`(0, 1)`.

    Raises
    ------
    RatingInputError
        ``significance_level`` is outside :math:`(0, 1)`.
    """
    if not 0.0 < significance_level < 1.0:
        raise RatingInputError(f"significance_level must be in (0, 1), got {significance_level!r}")
    n = stats.n_sessions
    p_volume = np.ones(n)
    p_position = np.ones(n)
    p_speed = np.ones(n)
    if n:
        mean_votes = float(stats.votes.mean())
        tested = stats.votes >= MIN_VOTES_FOR_VOLUME
        # sf(n - 1) = P(X >= n)
        p_volume[tested] = poisson.sf(stats.votes[tested] - 1, mean_votes)
        decisive = stats.left + stats.right
        tested = decisive >= MIN_DECISIVE_FOR_POSITION
        smaller = np.minimum(stats.left, stats.right)[tested]
        p_position[tested] = np.minimum(1.0, 2.0 * binom.cdf(smaller, decisive[tested], 0.5))
        tested = stats.gaps >= MIN_VOTES_FOR_SPEED - 1
        p_speed[tested] = binom.sf(stats.fast_gaps[tested] - 1, stats.gaps[tested], 0.5)
    return ScreenResult(stats, significance_level / N_TESTS, p_volume, p_position, p_speed)
