"""Degenerate arenas each give a defined, finite, documented result (see arena_rating.report)."""

from __future__ import annotations

import uuid

import numpy as np
import pytest

from arena_rating import (
    ETA_CEILING,
    INIT_RATING,
    SCALE,
    PairCounts,
    RatingInputError,
    RatingRows,
    pair_counts_from_votes,
    rate_pairs,
)
from arena_rating.report import align_warm_start, drift_in_standard_errors
from tests.unit.rating.synthetic import centred_strengths, simulate

RIDGE = 0.01
PRIOR_SE_POINTS = SCALE / np.sqrt(RIDGE)


def _ids(n: int) -> list[uuid.UUID]:
    return [uuid.UUID(int=i + 1) for i in range(n)]


def _assert_finite(rows: RatingRows) -> None:
    for name in ("rating", "stderr", "ci_lower", "ci_upper"):
        assert np.all(np.isfinite(getattr(rows, name))), name


def test_one_vote_in_total_gives_a_finite_lead_with_a_wide_interval() -> None:
    report = rate_pairs(_ids(2), pair_counts_from_votes(2, [0], [1], [0]), l2_penalty=RIDGE)

    rows = report.rows
    _assert_finite(rows)
    assert rows.rating[0] > INIT_RATING > rows.rating[1]
    assert rows.rating[0] - rows.rating[1] < 1_000
    assert np.all(rows.stderr > 100)
    np.testing.assert_array_equal(rows.games, [1, 1])
    np.testing.assert_array_equal(rows.component, [0, 0])


def test_a_model_without_a_kept_comparison_is_alone_with_the_prior_interval() -> None:
    rng = np.random.default_rng(51)
    sim = simulate(rng, centred_strengths(rng, 3), 2_000)
    counts = pair_counts_from_votes(4, sim.slot_a, sim.slot_b, sim.outcomes)  # model 3 never met

    rows = rate_pairs(_ids(4), counts, l2_penalty=RIDGE).rows

    assert rows.rating[3] == pytest.approx(INIT_RATING)
    assert rows.stderr[3] == pytest.approx(PRIOR_SE_POINTS)
    assert rows.component[3] == 1 and rows.games[3] == 0
    _assert_finite(rows)


def test_a_model_with_only_ties_is_rated_next_to_those_it_tied() -> None:
    rng = np.random.default_rng(52)
    sim = simulate(rng, np.array([0.5, 0.0, -0.5]), 3_000)
    tie_only = pair_counts_from_votes(4, [3] * 40 + [1] * 40, [1] * 40 + [3] * 40, [2] * 80)
    counts = PairCounts(
        4,
        np.vstack([sim.counts().pairs, tie_only.pairs]),
        np.r_[sim.counts().wins_first, tie_only.wins_first],
        np.r_[sim.counts().wins_second, tie_only.wins_second],
        np.r_[sim.counts().ties, tie_only.ties],
    )

    rows = rate_pairs(_ids(4), counts, l2_penalty=RIDGE).rows

    assert rows.component[3] == 0
    assert abs(rows.rating[3] - rows.rating[1]) < 2 * rows.stderr[3]
    _assert_finite(rows)


def test_all_ties_rate_everyone_at_1000_with_the_threshold_at_its_ceiling() -> None:
    counts = pair_counts_from_votes(3, [0, 1, 2, 0], [1, 2, 0, 2], [2, 2, 2, 2])

    report = rate_pairs(_ids(3), counts, l2_penalty=RIDGE)

    np.testing.assert_allclose(report.rows.rating, INIT_RATING, atol=1e-6)
    assert report.fit.tie_threshold == pytest.approx(ETA_CEILING)
    _assert_finite(report.rows)


def test_disconnected_components_are_each_centred_on_1000() -> None:
    rng = np.random.default_rng(53)
    islands = np.array([[0, 1], [1, 2], [3, 4]])
    counts = simulate(rng, np.array([1.0, 0.0, -1.0, 2.0, -2.0]), 4_000, pairs=islands).counts()

    report = rate_pairs(_ids(5), counts, l2_penalty=RIDGE)

    rows = report.rows
    np.testing.assert_array_equal(rows.component, [0, 0, 0, 1, 1])
    assert rows.rating[:3].mean() == pytest.approx(INIT_RATING)
    assert rows.rating[3:].mean() == pytest.approx(INIT_RATING)
    assert report.n_components == 2


def test_no_models_rate_to_empty_rows() -> None:
    counts = PairCounts(0, np.empty((0, 2), dtype=np.intp), np.empty(0), np.empty(0), np.empty(0))

    report = rate_pairs([], counts, l2_penalty=RIDGE)

    assert report.rows.model_ids == () and report.n_components == 0


def test_display_scale_is_1000_plus_400_over_ln10_times_the_strength() -> None:
    counts = pair_counts_from_votes(2, [0] * 40, [1] * 40, [0] * 30 + [1] * 10)

    report = rate_pairs(_ids(2), counts, l2_penalty=RIDGE)

    np.testing.assert_allclose(report.rows.rating, 1000 + 400 / np.log(10) * report.strengths)
    half = report.rows.ci_upper - report.rows.rating
    np.testing.assert_allclose(half, 1.959963984540054 * report.rows.stderr)


def test_model_ids_must_match_the_table() -> None:
    with pytest.raises(RatingInputError, match="model ids"):
        rate_pairs(_ids(3), pair_counts_from_votes(2, [0], [1], [0]), l2_penalty=RIDGE)


def test_rows_refuse_nan() -> None:
    with pytest.raises(RatingInputError, match="finite"):
        RatingRows(
            (uuid.uuid4(),),
            np.array([np.nan]),
            np.ones(1),
            np.zeros(1),
            np.ones(1),
            np.zeros(1, dtype=np.intp),
            np.zeros(1, dtype=np.int64),
        )


def test_a_warm_start_carries_known_models_and_starts_new_ones_at_zero() -> None:
    a, b, c = _ids(3)

    theta = align_warm_start([a, b], np.array([0.4, -0.4, 0.7]), [b, c, a])

    np.testing.assert_allclose(theta, [-0.4, 0.0, 0.4, 0.7])


def test_drift_is_measured_in_standard_errors_after_centring() -> None:
    drift = drift_in_standard_errors(
        np.array([1.0, 2.0]) + 5.0, np.array([1.0, 2.2]), np.zeros(2, np.intp), np.full(2, 0.2)
    )

    assert drift == pytest.approx(0.5)
