"""The anomaly screen flags planted bots, keeps honest voters, and protects the ratings."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.stats import binomtest, poisson

from arena_rating import (
    SCALE,
    AnomalyReason,
    RatingInputError,
    SessionStats,
    fit_rao_kupper,
    screen_sessions,
    session_stats,
)
from arena_rating.anomaly import MIN_DECISIVE_FOR_POSITION, MIN_VOTES_FOR_VOLUME
from tests.unit.rating.synthetic import (
    ALWAYS_LEFT,
    CLICKER,
    HONEST,
    STUFFER,
    centred_strengths,
    simulate_sessions,
)

LEVEL = 0.05
MIN_GAP_S = 1.5
#: The issue's bars: bots caught, honest sessions kept.
RECALL = 0.95
KEPT = 0.95


def _stats(log_kind: str, votes: list[str], gaps: list[float]) -> SessionStats:
    times = np.cumsum([0.0, *gaps])
    return session_stats([log_kind] * len(votes), times, votes, min_gap_s=MIN_GAP_S)


def test_planted_bots_are_flagged_and_honest_sessions_kept() -> None:
    rng = np.random.default_rng(41)
    log = simulate_sessions(
        rng, centred_strengths(rng, 12), honest=1_000, always_left=40, stuffers=40, clickers=40
    )
    stats = session_stats(log.session_ids, log.timestamps_s, log.votes, min_gap_s=MIN_GAP_S)
    kinds = log.kind_of_session()

    screen = screen_sessions(stats, significance_level=LEVEL)

    flagged = dict(zip(stats.session_ids, screen.flagged, strict=True))
    rate = {
        kind: np.mean([flagged[s] for s in stats.session_ids if kinds[s] == kind])
        for kind in (HONEST, ALWAYS_LEFT, STUFFER, CLICKER)
    }
    assert 1 - rate[HONEST] >= KEPT, rate
    for kind in (ALWAYS_LEFT, STUFFER, CLICKER):
        assert rate[kind] >= RECALL, rate


def test_each_bot_is_caught_by_the_test_meant_for_it() -> None:
    rng = np.random.default_rng(42)
    log = simulate_sessions(
        rng, centred_strengths(rng, 8), honest=300, always_left=5, stuffers=5, clickers=5
    )
    stats = session_stats(log.session_ids, log.timestamps_s, log.votes, min_gap_s=MIN_GAP_S)
    kinds = log.kind_of_session()

    screen = screen_sessions(stats, significance_level=LEVEL)

    expected = {
        ALWAYS_LEFT: AnomalyReason.POSITION,
        STUFFER: AnomalyReason.VOLUME,
        CLICKER: AnomalyReason.SPEED,
    }
    for i, session in enumerate(stats.session_ids):
        if kinds[session] in expected:
            assert expected[kinds[session]] in screen.reasons(i), session


def test_the_screen_keeps_planted_bots_from_moving_the_ratings() -> None:
    """Shift of the bots' target against the honest-only fit, screen on versus off."""
    rng = np.random.default_rng(43)
    truth = centred_strengths(rng, 10)
    log = simulate_sessions(
        rng, truth, honest=2_000, always_left=20, stuffers=20, clickers=60, target=0
    )
    honest_only = {s for s, k in log.kind_of_session().items() if k != HONEST}
    stats = session_stats(log.session_ids, log.timestamps_s, log.votes, min_gap_s=MIN_GAP_S)
    flagged = set(screen_sessions(stats, significance_level=LEVEL).flagged_ids)

    def target_rating(drop: set[str]) -> float:
        fit = fit_rao_kupper(log.counts(drop_sessions=drop), l2_penalty=0.01)
        return SCALE * float(fit.strengths[0])

    reference = target_rating(honest_only)
    shift_off = abs(target_rating(set()) - reference)
    shift_on = abs(target_rating(flagged) - reference)

    assert shift_off > 30, shift_off
    assert shift_on < 0.2 * shift_off, (shift_on, shift_off)


def test_short_sessions_are_never_tested() -> None:
    """Below each gate even a perfectly one-sided, instant, busy session passes."""
    stats = _stats("s", ["left"] * 7, [0.01] * 6)

    screen = screen_sessions(stats, significance_level=LEVEL)

    assert not screen.flagged.any()
    assert (screen.p_volume, screen.p_position, screen.p_speed) == ([1.0], [1.0], [1.0])


def test_p_values_are_the_exact_tests() -> None:
    stats = SessionStats(
        session_ids=("a", "b"),
        votes=np.array([25, 5]),
        left=np.array([17, 3]),
        right=np.array([3, 2]),
        gaps=np.array([24, 4]),
        fast_gaps=np.array([15, 0]),
        median_gap_s=np.array([1.0, 30.0]),
    )

    screen = screen_sessions(stats, significance_level=LEVEL)

    assert screen.p_position[0] == pytest.approx(binomtest(17, 20, 0.5).pvalue, rel=1e-9)
    assert screen.p_volume[0] == pytest.approx(poisson.sf(24, 15.0), rel=1e-9)
    assert screen.p_speed[0] == pytest.approx(binomtest(15, 24, 0.5, "greater").pvalue, rel=1e-9)
    assert screen.threshold == pytest.approx(LEVEL / 3)


def test_session_statistics_count_votes_sides_and_gaps() -> None:
    stats = session_stats(
        ["x", "y", "x", "x", "y"],
        [10.0, 0.0, 11.0, 20.0, 5.0],
        ["left", "right", "both_bad", "right", "skip"],
        min_gap_s=MIN_GAP_S,
    )

    assert stats.session_ids == ("x", "y")
    np.testing.assert_array_equal(stats.votes, [3, 2])
    np.testing.assert_array_equal(stats.left, [1, 0])
    np.testing.assert_array_equal(stats.right, [1, 1])
    np.testing.assert_array_equal(stats.gaps, [2, 1])
    np.testing.assert_array_equal(stats.fast_gaps, [1, 0])
    np.testing.assert_allclose(stats.median_gap_s, [5.0, 5.0])


def test_unknown_vote_labels_are_rejected() -> None:
    with pytest.raises(RatingInputError, match="unknown vote labels"):
        session_stats(["s"], [0.0], ["up"], min_gap_s=MIN_GAP_S)


@pytest.mark.parametrize("level", [0.0, 1.0, -0.1])
def test_a_level_outside_zero_one_is_rejected(level: float) -> None:
    with pytest.raises(RatingInputError, match="significance_level"):
        screen_sessions(_stats("s", ["left"], []), significance_level=level)


def test_the_gates_are_the_documented_ones() -> None:
    assert (MIN_VOTES_FOR_VOLUME, MIN_DECISIVE_FOR_POSITION) == (20, 15)
