"""The Rao-Kupper fit is checked against mathematics: derivatives, published answers, choix."""

from __future__ import annotations

import choix
import numpy as np
import pytest
from scipy.optimize import approx_fprime, check_grad
from scipy.special import expit

from arena_rating import (
    SCALE,
    Outcome,
    PairCounts,
    RatingFitError,
    RatingInputError,
    fit_rao_kupper,
    pair_counts_from_votes,
)
from arena_rating._ordered_logit import (
    row_gradient,
    row_log_likelihood,
    single_outcome_value_and_gradient,
)
from arena_rating._solver import minimise_bounded
from arena_rating.bradley_terry import gradient, hessian, negative_log_posterior
from arena_rating.connectivity import centre_within_components
from tests.unit.rating.synthetic import centred_strengths, simulate

RIDGE = 0.01
#: Relative error allowed between an analytic derivative and central finite differences.
DERIVATIVE_RTOL = 1e-5
FD_STEP = 1e-6
#: Published scores of Wikipedia's four-team example (geometric mean 1), to its 3 decimals.
WIKIPEDIA_SCORES = np.array([0.640, 1.043, 0.660, 2.270])
WIKIPEDIA_ATOL = 5e-4
#: The issue's tolerance against an independent reference, in display points.
REFERENCE_POINTS = 0.5


def _table(rng: np.random.Generator, *, ties: bool, n_models: int = 6) -> PairCounts:
    sim = simulate(rng, centred_strengths(rng, n_models), 3_000, tie_threshold=0.6)
    counts = sim.counts()
    return (
        counts
        if ties
        else counts.with_counts(counts.wins_first, counts.wins_second, 0 * counts.ties)
    )


def _random_theta(rng: np.random.Generator, n_models: int) -> np.ndarray:
    return np.append(rng.normal(0, 0.7, n_models), rng.uniform(0.2, 1.5))


@pytest.mark.parametrize(
    "ties", [pytest.param(True, id="with-ties"), pytest.param(False, id="no-ties")]
)
def test_gradient_matches_finite_differences(ties: bool) -> None:
    rng = np.random.default_rng(11)
    counts = _table(rng, ties=ties)
    theta = _random_theta(rng, counts.n_models)

    error = check_grad(negative_log_posterior, gradient, theta, counts, RIDGE, epsilon=FD_STEP)

    assert error <= DERIVATIVE_RTOL * np.linalg.norm(gradient(theta, counts, RIDGE))


def test_hessian_matches_finite_differences_of_the_gradient() -> None:
    rng = np.random.default_rng(12)
    counts = _table(rng, ties=True)
    theta = _random_theta(rng, counts.n_models)
    numeric = np.array(
        [
            approx_fprime(theta, lambda t, k=k: gradient(t, counts, RIDGE)[k], FD_STEP)
            for k in range(theta.size)
        ]
    )

    analytic = hessian(theta, counts, RIDGE)

    np.testing.assert_allclose(analytic, numeric, rtol=1e-4, atol=1e-4 * np.abs(analytic).max())
    np.testing.assert_allclose(analytic, analytic.T)


def test_outcome_probabilities_sum_to_one() -> None:
    d = np.linspace(-8, 8, 41)
    one = np.ones_like(d)
    zero = np.zeros_like(d)

    total = sum(
        np.exp(row_log_likelihood(d, 0.7, *counts))
        for counts in ((one, zero, zero), (zero, one, zero), (zero, zero, one))
    )

    np.testing.assert_allclose(total, 1.0, rtol=1e-12)
    np.testing.assert_allclose(
        np.exp(row_log_likelihood(d, 0.7, zero, zero, one)), expit(d + 0.7) - expit(d - 0.7)
    )


def test_single_outcome_rows_agree_with_count_weighted_rows() -> None:
    rng = np.random.default_rng(13)
    d = rng.normal(0, 2, 30)
    n_first, n_second = 12, 10
    w = np.r_[np.ones(n_first), np.zeros(18)]
    l = np.r_[np.zeros(n_first), np.ones(n_second), np.zeros(8)]  # noqa: E741
    t = 1 - w - l
    weighted = row_gradient(d, 0.4, w, l, t)

    value, g_d, g_eta = single_outcome_value_and_gradient(d, 0.4, n_first, n_second)

    assert value == pytest.approx(row_log_likelihood(d, 0.4, w, l, t).sum(), rel=1e-12)
    np.testing.assert_allclose(g_d, weighted.d, rtol=1e-12)
    assert g_eta == pytest.approx(weighted.eta.sum(), rel=1e-12)


def test_reproduces_the_wikipedia_worked_example() -> None:
    """Teams A-D: A-B 2:3, A-D 1:4, B-C 5:3, C-D 1:3 (no ties, strongly connected)."""
    counts = PairCounts(
        4,
        np.array([[0, 1], [0, 3], [1, 2], [2, 3]]),
        np.array([2.0, 1.0, 5.0, 1.0]),
        np.array([3.0, 4.0, 3.0, 3.0]),
        np.zeros(4),
    )

    fit = fit_rao_kupper(counts, l2_penalty=1e-9)

    np.testing.assert_allclose(np.exp(fit.strengths), WIKIPEDIA_SCORES, atol=WIKIPEDIA_ATOL)


def test_without_ties_equals_choix_within_half_a_rating_point() -> None:
    """choix maximises the same likelihood with the penalty alpha * ||theta||^2."""
    rng = np.random.default_rng(14)
    sim = simulate(rng, centred_strengths(rng, 10), 6_000, tie_threshold=1e-4)
    decisive = sim.outcomes != Outcome.TIE
    a, b, y = sim.slot_a[decisive], sim.slot_b[decisive], sim.outcomes[decisive]
    data = [
        (int(w), int(l))
        for w, l in zip(np.where(y == 0, a, b), np.where(y == 0, b, a), strict=True)  # noqa: E741
    ]
    reference = choix.opt_pairwise(10, data, alpha=RIDGE / 2, method="Newton-CG", tol=1e-12)

    fit = fit_rao_kupper(pair_counts_from_votes(10, a, b, y), l2_penalty=RIDGE)

    gap = SCALE * np.abs(fit.strengths - (reference - reference.mean()))
    assert gap.max() < REFERENCE_POINTS


def test_recovers_planted_strengths_with_correlation_above_099_at_50k_votes() -> None:
    rng = np.random.default_rng(15)
    truth = centred_strengths(rng, 30)
    counts = simulate(rng, truth, 50_000, tie_threshold=0.5).counts()

    fit = fit_rao_kupper(counts, l2_penalty=RIDGE)

    assert np.corrcoef(fit.strengths, truth)[0, 1] >= 0.99
    assert fit.tie_threshold == pytest.approx(0.5, abs=0.03)


def test_a_warm_start_reaches_the_cold_optimum() -> None:
    rng = np.random.default_rng(16)
    truth = centred_strengths(rng, 12)
    sim = simulate(rng, truth, 20_000)
    before = pair_counts_from_votes(
        12, sim.slot_a[:19_500], sim.slot_b[:19_500], sim.outcomes[:19_500]
    )
    after = sim.counts()  # the same votes and 500 more: what a loop refit sees
    previous = fit_rao_kupper(before, l2_penalty=RIDGE)

    warm = fit_rao_kupper(after, l2_penalty=RIDGE, initial=previous.theta)

    cold = fit_rao_kupper(after, l2_penalty=RIDGE)
    np.testing.assert_allclose(warm.strengths, cold.strengths, atol=1e-5)
    assert warm.iterations < cold.iterations


def test_the_ridge_centres_every_component_on_zero() -> None:
    rng = np.random.default_rng(17)
    two_islands = np.array([[0, 1], [1, 2], [3, 4]])
    counts = simulate(rng, centred_strengths(rng, 5), 2_000, pairs=two_islands).counts()

    fit = fit_rao_kupper(counts, l2_penalty=RIDGE)

    assert fit.strengths[:3].sum() == pytest.approx(0.0, abs=1e-6)
    assert fit.strengths[3:].sum() == pytest.approx(0.0, abs=1e-6)


def test_shifting_all_strengths_leaves_the_likelihood_unchanged() -> None:
    rng = np.random.default_rng(18)
    counts = _table(rng, ties=True)
    theta = _random_theta(rng, counts.n_models)
    shifted = theta + np.append(np.full(counts.n_models, 3.0), 0.0)

    unpenalised = negative_log_posterior(shifted, counts, 1e-300)

    assert unpenalised == pytest.approx(negative_log_posterior(theta, counts, 1e-300), rel=1e-12)


def test_swapping_the_sides_of_a_vote_flips_its_outcome() -> None:
    first, second = np.array([0, 2, 1, 3]), np.array([1, 0, 2, 1])
    outcomes = np.array([Outcome.FIRST_WINS, Outcome.SECOND_WINS, Outcome.TIE, Outcome.FIRST_WINS])
    flipped = np.array([Outcome.SECOND_WINS, Outcome.FIRST_WINS, Outcome.TIE, Outcome.SECOND_WINS])

    swapped = pair_counts_from_votes(4, second, first, flipped)

    original = pair_counts_from_votes(4, first, second, outcomes)
    for name in ("pairs", "wins_first", "wins_second", "ties"):
        np.testing.assert_array_equal(getattr(swapped, name), getattr(original, name))


def test_aggregates_into_canonical_lower_index_first_pairs() -> None:
    counts = pair_counts_from_votes(3, [2, 0, 2, 1], [0, 2, 0, 2], [0, 0, 2, 1])

    np.testing.assert_array_equal(counts.pairs, [[0, 2], [1, 2]])
    np.testing.assert_array_equal(counts.wins_first, [1, 0])
    np.testing.assert_array_equal(counts.wins_second, [1, 1])
    np.testing.assert_array_equal(counts.ties, [1, 0])


@pytest.mark.parametrize(
    "outcomes",
    [pytest.param([0, 3], id="unknown-code"), pytest.param([0, -1], id="negative-code")],
)
def test_unknown_outcome_codes_are_rejected(outcomes: list[int]) -> None:
    with pytest.raises(RatingInputError, match="Outcome codes"):
        pair_counts_from_votes(3, [0, 1], [1, 2], outcomes)


@pytest.mark.parametrize(
    ("pairs", "wins", "message"),
    [
        pytest.param([[0, 0]], [1.0], "itself", id="self-pair"),
        pytest.param([[0, 5]], [1.0], "indices", id="out-of-range"),
        pytest.param([[0, 1]], [-1.0], "non-negative", id="negative-count"),
        pytest.param([[0, 1]], [np.nan], "finite", id="nan-count"),
    ],
)
def test_malformed_tables_are_rejected(
    pairs: list[list[int]], wins: list[float], message: str
) -> None:
    with pytest.raises(RatingInputError, match=message):
        PairCounts(3, np.array(pairs), np.array(wins), np.zeros(1), np.zeros(1))


@pytest.mark.parametrize("penalty", [0.0, -1.0, float("nan")])
def test_a_ridge_that_is_not_positive_is_rejected(penalty: float) -> None:
    counts = pair_counts_from_votes(2, [0], [1], [0])

    with pytest.raises(RatingInputError, match="l2_penalty"):
        fit_rao_kupper(counts, l2_penalty=penalty)


def test_an_optimiser_that_does_not_converge_raises_rating_fit_error() -> None:
    def inconsistent(theta: np.ndarray) -> tuple[float, np.ndarray]:
        return float(np.sum(theta**2)), -np.ones_like(theta)  # the gradient points uphill

    with pytest.raises(RatingFitError, match="did not converge"):
        minimise_bounded(inconsistent, np.array([0.0, 0.5]), curvature=np.ones(2))


def test_centring_is_per_component() -> None:
    centred = centre_within_components(np.array([1.0, 3.0, 10.0]), np.array([0, 0, 1]))

    np.testing.assert_allclose(centred, [-1.0, 1.0, 0.0])
