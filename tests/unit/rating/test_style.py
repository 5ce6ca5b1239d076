"""The style-controlled fit: derivatives, recovery of planted effects, and what it controls for."""

from __future__ import annotations

import uuid

import numpy as np
import pytest
from scipy.optimize import approx_fprime, check_grad
from scipy.special import expit

from arena_rating import (
    SCALE,
    STYLE_FEATURES,
    Outcome,
    RatingInputError,
    StyleVotes,
    fit_rao_kupper,
    fit_style,
    pair_counts_from_votes,
    rate_style,
)
from arena_rating.style import style_gradient, style_hessian, style_objective
from tests.unit.rating.synthetic import (
    PLANTED_STYLE,
    centred_strengths,
    planted_standardised,
    simulate,
)

RIDGE = 0.05
DERIVATIVE_RTOL = 1e-5
FD_STEP = 1e-6
#: z of a two-sided 99% interval: five coefficients must all fall inside their intervals.
Z_99 = 2.576


def _ids(n: int) -> list[uuid.UUID]:
    return [uuid.UUID(int=i + 1) for i in range(n)]


def _theta(rng: np.random.Generator, n_models: int) -> np.ndarray:
    return np.concatenate([rng.normal(0, 0.5, n_models), rng.normal(0, 0.2, 5), [0.6]])


def test_gradient_matches_finite_differences() -> None:
    rng = np.random.default_rng(31)
    votes = simulate(rng, centred_strengths(rng, 6), 2_000, style=PLANTED_STYLE).style_votes()
    theta = _theta(rng, 6)

    error = check_grad(style_objective, style_gradient, theta, votes, RIDGE, epsilon=FD_STEP)

    assert error <= DERIVATIVE_RTOL * np.linalg.norm(style_gradient(theta, votes, RIDGE))


def test_hessian_matches_finite_differences_of_the_gradient() -> None:
    rng = np.random.default_rng(32)
    votes = simulate(rng, centred_strengths(rng, 5), 2_000, style=PLANTED_STYLE).style_votes()
    theta = _theta(rng, 5)
    numeric = np.array(
        [
            approx_fprime(theta, lambda t, k=k: style_gradient(t, votes, RIDGE)[k], FD_STEP)
            for k in range(theta.size)
        ]
    )

    analytic = style_hessian(theta, votes, RIDGE)

    np.testing.assert_allclose(analytic, numeric, rtol=1e-4, atol=1e-4 * np.abs(analytic).max())


def test_recovers_the_planted_coefficients_signs_and_sizes_within_their_intervals() -> None:
    rng = np.random.default_rng(33)
    truth = centred_strengths(rng, 20)
    sim = simulate(rng, truth, 50_000, tie_threshold=0.5, style=PLANTED_STYLE)
    planted = planted_standardised(sim, PLANTED_STYLE)

    report = rate_style(
        [f"m{i}" for i in range(20)],
        sim.style_votes(),
        l2_penalty=RIDGE,  # type: ignore[misc]
    )

    fitted = report.fit.coefficients
    stderr = report.coefficient_stderr
    assert np.all(np.abs(fitted - planted) <= Z_99 * stderr), (fitted, planted, stderr)
    nonzero = planted != 0
    np.testing.assert_array_equal(np.sign(fitted[nonzero]), np.sign(planted[nonzero]))
    assert np.corrcoef(report.fit.strengths, truth)[0, 1] >= 0.99


def test_the_coefficients_95_percent_intervals_cover_the_planted_values() -> None:
    """Over 10 arenas, 50 (coefficient, arena) intervals: at least 85% cover."""
    rng = np.random.default_rng(34)
    truth = centred_strengths(rng, 10)
    covered = []

    for _ in range(10):
        sim = simulate(rng, truth, 8_000, style=PLANTED_STYLE)
        report = rate_style(_ids(10), sim.style_votes(), l2_penalty=RIDGE)
        gap = np.abs(report.fit.coefficients - planted_standardised(sim, PLANTED_STYLE))
        covered.append(gap <= 1.96 * report.coefficient_stderr)

    assert np.mean(covered) >= 0.85


def test_controlling_for_verbosity_shrinks_a_gap_that_only_length_explains() -> None:
    """Two equally good models; voters love length and model 0 writes twice as much."""
    rng = np.random.default_rng(35)
    sim = simulate(rng, np.zeros(2), 20_000, style={**PLANTED_STYLE, "verbosity": 0.004})
    tokens_a = np.where(sim.slot_a == 0, 900.0, 450.0) + rng.normal(0, 60, sim.n_votes)
    tokens_b = np.where(sim.slot_b == 0, 900.0, 450.0) + rng.normal(0, 60, sim.n_votes)
    features = sim.features()
    features[:, 1] = tokens_a - tokens_b
    d = 0.004 * features[:, 1]
    u = rng.random(sim.n_votes)
    outcomes = np.where(
        u < expit(d - 0.5), Outcome.FIRST_WINS, np.where(u < expit(d - 0.5) + expit(-d - 0.5), 1, 2)
    ).astype(np.int8)
    votes = StyleVotes(2, sim.slot_a, sim.slot_b, outcomes, features)
    raw = fit_rao_kupper(
        pair_counts_from_votes(2, sim.slot_a, sim.slot_b, outcomes), l2_penalty=0.01
    )

    controlled = fit_style(votes, l2_penalty=RIDGE)

    raw_gap = SCALE * (raw.strengths[0] - raw.strengths[1])
    controlled_gap = SCALE * (controlled.strengths[0] - controlled.strengths[1])
    assert raw_gap > 150
    assert abs(controlled_gap) < 0.2 * raw_gap


def test_coefficients_per_unit_restate_the_standardised_ones() -> None:
    rng = np.random.default_rng(36)
    sim = simulate(rng, centred_strengths(rng, 6), 5_000, style=PLANTED_STYLE)

    fit = fit_style(sim.style_votes(), l2_penalty=RIDGE)

    per_unit = fit.coefficients_per_unit
    assert list(per_unit) == list(STYLE_FEATURES[1:])
    sd_tokens = sim.features()[:, 1].std()
    assert per_unit["verbosity"][0] == pytest.approx(fit.coefficients[1] / sd_tokens * 100)
    assert per_unit["verbosity"][1] == "100 output tokens"


def test_a_feature_without_spread_keeps_a_zero_coefficient() -> None:
    rng = np.random.default_rng(37)
    sim = simulate(rng, centred_strengths(rng, 4), 3_000)
    features = sim.features()
    features[:, 3] = 0.0  # every TTFT delta is zero

    fit = fit_style(StyleVotes(4, sim.slot_a, sim.slot_b, sim.outcomes, features), l2_penalty=RIDGE)

    assert fit.coefficients[3] == 0.0
    assert not fit.informative[3]
    assert "latency_ttft" not in fit.coefficients_per_unit


@pytest.mark.parametrize(
    ("column", "value", "message"),
    [
        pytest.param(2, np.nan, "finite", id="missing-metric"),
        pytest.param(4, np.inf, "finite", id="infinite-metric"),
    ],
)
def test_votes_with_missing_metrics_must_be_excluded_before_the_fit(
    column: int, value: float, message: str
) -> None:
    features = np.ones((2, 5))
    features[1, column] = value

    with pytest.raises(RatingInputError, match=message):
        StyleVotes(3, np.array([0, 1]), np.array([1, 2]), np.array([0, 2]), features)


def test_an_unknown_outcome_code_is_rejected() -> None:
    with pytest.raises(RatingInputError, match="Outcome codes"):
        StyleVotes(2, np.array([0]), np.array([1]), np.array([7]), np.ones((1, 5)))
