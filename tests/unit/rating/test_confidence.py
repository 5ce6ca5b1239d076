"""Fisher intervals cover the truth as often as they claim, and a bootstrap agrees with them."""

from __future__ import annotations

import numpy as np
import pytest

from arena_rating import (
    RatingFitError,
    centre_within_components,
    connected_components,
    fisher_standard_errors,
    fit_rao_kupper,
    multinomial_bootstrap,
    width_ratios,
)
from arena_rating.confidence import (
    anchored_standard_errors,
    confidence_bounds,
    invert_hessian,
)
from tests.unit.rating.synthetic import centred_strengths, simulate

RIDGE = 0.01
CONFIDENCE = 0.95
#: The issue's band for the empirical coverage of 95% intervals.
COVERAGE_BAND = (0.90, 0.99)
#: The issue's tolerance between bootstrap and Fisher interval widths.
WIDTH_RTOL = 0.10


def test_95_percent_fisher_intervals_cover_the_truth_90_to_99_percent_of_the_time() -> None:
    """20 models, 40 independent arenas of 10k votes: 800 (model, arena) intervals."""
    rng = np.random.default_rng(21)
    truth = centred_strengths(rng, 20)
    covered = []

    for _ in range(40):
        counts = simulate(rng, truth, 10_000, tie_threshold=0.5).counts()
        fit = fit_rao_kupper(counts, l2_penalty=RIDGE)
        labels = connected_components(counts.n_models, counts.edges())
        stderr = fisher_standard_errors(fit, counts, l2_penalty=RIDGE, labels=labels)
        lower, upper = confidence_bounds(fit.strengths, stderr, CONFIDENCE)
        covered.append((lower <= truth) & (truth <= upper))

    coverage = float(np.mean(covered))
    assert COVERAGE_BAND[0] <= coverage <= COVERAGE_BAND[1], coverage


def test_fisher_and_bootstrap_interval_widths_agree_within_ten_percent() -> None:
    rng = np.random.default_rng(22)
    counts = simulate(rng, centred_strengths(rng, 8), 20_000, tie_threshold=0.5).counts()
    fit = fit_rao_kupper(counts, l2_penalty=RIDGE)
    labels = connected_components(counts.n_models, counts.edges())
    fisher = fisher_standard_errors(fit, counts, l2_penalty=RIDGE, labels=labels)

    boot = multinomial_bootstrap(
        counts, l2_penalty=RIDGE, n_resamples=500, rng=rng, labels=labels, initial=fit.theta
    )

    ratios = width_ratios(boot.standard_errors, fisher, labels)
    np.testing.assert_allclose(ratios, 1.0, atol=WIDTH_RTOL)


def test_bootstrap_draws_are_centred_within_components() -> None:
    rng = np.random.default_rng(23)
    islands = np.array([[0, 1], [1, 2], [3, 4]])
    counts = simulate(rng, centred_strengths(rng, 5), 3_000, pairs=islands).counts()
    labels = connected_components(5, counts.edges())

    boot = multinomial_bootstrap(counts, l2_penalty=RIDGE, n_resamples=5, rng=rng, labels=labels)

    np.testing.assert_allclose(boot.draws[:, :3].sum(axis=1), 0.0, atol=1e-9)
    np.testing.assert_allclose(boot.draws[:, 3:].sum(axis=1), 0.0, atol=1e-9)


def test_the_projection_removes_the_common_shift_from_every_variance() -> None:
    """A covariance that is pure common shift (all ones) projects to zero variance."""
    common = np.ones((3, 3)) * 50.0 + np.eye(3)

    stderr = anchored_standard_errors(common, np.zeros(3, dtype=np.intp))

    np.testing.assert_allclose(stderr, np.sqrt(1 - 1 / 3))


def test_a_model_alone_in_its_component_gets_the_prior_interval() -> None:
    stderr = anchored_standard_errors(np.diag([2.0, 2.0, 1 / RIDGE]), np.array([0, 0, 1]))

    assert stderr[2] == pytest.approx(1 / np.sqrt(RIDGE))


def test_centring_matches_the_anchoring_contrast() -> None:
    from arena_rating.connectivity import anchoring_contrast

    labels = np.array([0, 1, 0, 0, 1])
    values = np.arange(5.0) ** 2

    np.testing.assert_allclose(
        anchoring_contrast(labels) @ values, centre_within_components(values, labels)
    )


def test_a_hessian_that_is_not_positive_definite_raises_rating_fit_error() -> None:
    with pytest.raises(RatingFitError, match="positive definite"):
        invert_hessian(np.array([[1.0, 2.0], [2.0, 1.0]]))


def test_a_fixed_parameter_is_held_out_of_the_covariance() -> None:
    covariance = invert_hessian(np.array([[2.0, 1.0], [1.0, 0.0]]), fixed=[1])

    np.testing.assert_allclose(covariance, [[0.5, 0.0], [0.0, 0.0]])
