r"""Confidence intervals: observed Fisher information, checked by a multinomial bootstrap.

Fisher intervals
----------------
Under the ridge prior the penalised objective :math:`f` is smooth and strictly convex, so a
Laplace approximation at the optimum :math:`\hat\theta` gives the covariance

.. math::

    \Sigma = \big[\nabla^2 f(\hat\theta)\big]^{-1}

(the inverse observed Fisher information, prior included). Strengths are reported centred per
component, :math:`\tilde r = P r` with the anchoring contrast :math:`P`
(``arena_rating.connectivity.anchoring_contrast``), so their covariance is
:math:`P\,\Sigma_{rr}\,P^\top`; without the projection the barely-penalised common shift of each
component (curvature :math:`\lambda` only) would dominate every variance. The tie threshold is
integrated out by taking the :math:`rr` block of the full inverse; when :math:`\eta` sits on a
bound it is held fixed instead (its Fisher information is not meaningful there).

A model alone in its component has no comparison to be centred against: its interval is the
ridge prior's, :math:`\pm z/\sqrt{\lambda}` on the log-odds scale (wide and finite, never NaN).

Bootstrap
---------
``multinomial_bootstrap`` resamples the aggregated table itself: the :math:`3K` outcome cells of
:math:`K` pairs are drawn jointly from :math:`\mathrm{Multinomial}(N, \hat p)` with the observed
proportions :math:`\hat p`, each draw is refitted (warm-started at the point estimate) and
centred per component, and the column standard deviations estimate the standard errors without
touching a raw vote.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import numpy as np
import scipy.linalg
from numpy.typing import ArrayLike, NDArray

from arena_rating._errors import RatingFitError, RatingInputError
from arena_rating._scale import z_value
from arena_rating.bradley_terry import PairCounts, RaoKupperFit, fit_rao_kupper, hessian
from arena_rating.connectivity import (
    anchoring_contrast,
    centre_within_components,
    component_sizes,
)

__all__ = [
    "BootstrapResult",
    "anchored_standard_errors",
    "confidence_bounds",
    "fisher_standard_errors",
    "invert_hessian",
    "multinomial_bootstrap",
    "width_ratios",
]


def invert_hessian(h: ArrayLike, *, fixed: Sequence[int] = ()) -> NDArray[np.float64]:
    """Covariance :math:`H^{-1}` of a positive-definite Hessian, holding ``fixed`` parameters.

    Rows and columns in ``fixed`` are dropped before the inversion and come back as zeros: the
    covariance conditional on those parameters.

    Raises
    ------
    RatingFitError
        The (reduced) Hessian is not positive definite, i.e. the optimum is not a strict minimum.
    """
    matrix = np.asarray(h, dtype=np.float64)
    keep = np.setdiff1d(np.arange(matrix.shape[0]), np.asarray(fixed, dtype=np.intp))
    reduced = matrix[np.ix_(keep, keep)]
    try:
        factor = scipy.linalg.cho_factor(reduced, lower=True)
    except scipy.linalg.LinAlgError as exc:
        raise RatingFitError(f"the Hessian at the optimum is not positive definite: {exc}") from exc
    covariance = np.zeros_like(matrix)
    covariance[np.ix_(keep, keep)] = scipy.linalg.cho_solve(factor, np.eye(keep.size))
    return covariance


def anchored_standard_errors(covariance: ArrayLike, labels: ArrayLike) -> NDArray[np.float64]:
    r"""Standard errors of strengths centred per component: :math:`\sqrt{\operatorname{diag}(P
    \Sigma P^\top)}`, and :math:`\sqrt{\Sigma_{ii}}` for a model alone in its component.

    Parameters
    ----------
    covariance : array_like, shape (n_models, n_models)
        :math:`\Sigma_{rr}`, the strengths' block of the inverse Hessian.
    labels : array_like of int, shape (n_models,)
        Component ids from ``connected_components``.
    """
    sigma = np.asarray(covariance, dtype=np.float64)
    lab = np.asarray(labels, dtype=np.intp)
    if sigma.shape != (lab.size, lab.size):
        raise RatingInputError(f"covariance must be ({lab.size}, {lab.size}), got {sigma.shape}")
    p = anchoring_contrast(lab)
    variance = np.einsum("ij,jk,ik->i", p, sigma, p)
    alone = component_sizes(lab)[lab] == 1
    variance[alone] = np.diag(sigma)[alone]
    stderr: NDArray[np.float64] = np.sqrt(np.clip(variance, 0.0, None))
    return stderr


def fisher_standard_errors(
    fit: RaoKupperFit, counts: PairCounts, *, l2_penalty: float, labels: ArrayLike
) -> NDArray[np.float64]:
    """Standard errors (log-odds scale) of the centred strengths of a default fit.

    Returns
    -------
    NDArray[np.float64], shape (n_models,)

    Raises
    ------
    RatingFitError
        The Hessian at ``fit`` is not positive definite.
    """
    n = counts.n_models
    # Without comparisons, or with the threshold on a bound, eta has no usable information.
    fixed = [n] if fit.is_tie_threshold_at_bound or counts.total == 0 else []
    covariance = invert_hessian(hessian(fit.theta, counts, l2_penalty), fixed=fixed)
    return anchored_standard_errors(covariance[:n, :n], labels)


def confidence_bounds(
    centre: ArrayLike, stderr: ArrayLike, confidence_level: float
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Symmetric normal interval ``centre ± z · stderr`` at ``confidence_level``."""
    z = z_value(confidence_level)
    c = np.asarray(centre, dtype=np.float64)
    half = z * np.asarray(stderr, dtype=np.float64)
    return c - half, c + half


@dataclass(frozen=True)
class BootstrapResult:
    """Refitted strengths of each resample.

    Attributes
    ----------
    draws : NDArray[np.float64], shape (n_resamples, n_models)
        Strengths of each resample, centred per component of the original data.
    standard_errors : NDArray[np.float64], shape (n_models,)
        Column standard deviations of ``draws`` (``ddof=1``).
    """

    draws: NDArray[np.float64]
    standard_errors: NDArray[np.float64]


def multinomial_bootstrap(
    counts: PairCounts,
    *,
    l2_penalty: float,
    n_resamples: int,
    rng: np.random.Generator,
    labels: ArrayLike,
    initial: NDArray[np.float64] | None = None,
) -> BootstrapResult:
    r"""Bootstrap the aggregated table: draw cells from :math:`\mathrm{Multinomial}(N, \hat p)`.

    Parameters
    ----------
    counts : PairCounts
        The observed table (:math:`N` = ``counts.total``).
    l2_penalty : float
        The ridge of the fit being validated.
    n_resamples : int
        Number of resamples, at least 2.
    rng : numpy.random.Generator
        Source of randomness (injected, never global).
    labels : array_like of int, shape (n_models,)
        Components of the original data; every draw is centred within them.
    initial : NDArray[np.float64], optional
        The point estimate's ``theta``; each refit starts there.

    Raises
    ------
    RatingInputError
        ``n_resamples < 2`` or the table is empty.
    RatingFitError
        A refit did not converge.
    """
    if n_resamples < 2:
        raise RatingInputError(f"n_resamples must be at least 2, got {n_resamples}")
    total = counts.total
    if total <= 0:
        raise RatingInputError("cannot bootstrap an empty table")
    cells = np.concatenate([counts.wins_first, counts.wins_second, counts.ties])
    n_total = int(round(total))
    k = counts.pairs.shape[0]
    draws = np.empty((n_resamples, counts.n_models))
    tables = rng.multinomial(n_total, cells / cells.sum(), size=n_resamples)
    for b in range(n_resamples):
        table = tables[b]
        resample = counts.with_counts(table[:k], table[k : 2 * k], table[2 * k :])
        refit = fit_rao_kupper(resample, l2_penalty=l2_penalty, initial=initial)
        draws[b] = centre_within_components(refit.strengths, labels)
    return BootstrapResult(draws, draws.std(axis=0, ddof=1))


def width_ratios(
    bootstrap_se: ArrayLike, fisher_se: ArrayLike, labels: ArrayLike
) -> NDArray[np.float64]:
    """Bootstrap-to-Fisher interval width ratio of every model that shares a component.

    Models alone in their component are left out: their Fisher interval is the prior's and the
    bootstrap, which only sees data, has nothing to say about them.
    """
    lab = np.asarray(labels, dtype=np.intp)
    shared = component_sizes(lab)[lab] > 1
    boot = np.asarray(bootstrap_se, dtype=np.float64)[shared]
    fisher = np.asarray(fisher_se, dtype=np.float64)[shared]
    return boot / fisher
