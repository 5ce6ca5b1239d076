r"""Rao-Kupper Bradley-Terry: the default rating fit on aggregated pair counts.

Model
-----
Each model :math:`i` has a log-strength :math:`r_i`; a tie threshold :math:`\eta > 0` is shared.
For the pair :math:`(i, j)` with :math:`d = r_i - r_j`,

.. math::

    P(i \succ j) = \sigma(d - \eta), \quad P(j \succ i) = \sigma(-d - \eta), \quad
    P(\text{tie}) = \sigma(d + \eta) - \sigma(d - \eta).

The fit minimises the ridge-penalised negative log-likelihood over the aggregated counts
:math:`(w_k, l_k, t_k)` of every pair :math:`k = (i_k, j_k)`,

.. math::

    f(r, \eta) = -\sum_k \ell(r_{i_k} - r_{j_k}, \eta; w_k, l_k, t_k)
                 + \tfrac{1}{2}\,\lambda \lVert r \rVert^2,

(:math:`\ell` is defined in ``arena_rating._ordered_logit``) with ``l2_penalty`` :math:`= \lambda`
applied to the strengths only, never to :math:`\eta`. :math:`f` is strictly convex for
:math:`\lambda > 0`, so the minimiser is unique; because :math:`\ell` is invariant to a common
shift of a connected component, the optimum satisfies :math:`\sum_{i \in C} r_i = 0` on every
component :math:`C` (the ridge does the anchoring). The optimiser is SciPy's L-BFGS-B with the
analytic gradient; the analytic Hessian serves the Fisher-information intervals
(``arena_rating.confidence``). The parameter vector is :math:`\theta = (r_0, \dots, r_{n-1},
\eta)`.
"""

from __future__ import annotations

from dataclasses import dataclass
from enum import IntEnum

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena_rating._errors import RatingInputError
from arena_rating._ordered_logit import (
    ETA_CEILING,
    ETA_FLOOR,
    is_at_bound,
    row_curvature,
    row_gradient,
    row_log_likelihood,
)
from arena_rating._solver import minimise_bounded
from arena_rating.connectivity import centre_within_components, connected_components

__all__ = [
    "ETA_CEILING",
    "ETA_FLOOR",
    "Outcome",
    "PairCounts",
    "RaoKupperFit",
    "cold_start",
    "fit_rao_kupper",
    "gradient",
    "hessian",
    "negative_log_posterior",
    "pair_counts_from_votes",
]


class Outcome(IntEnum):
    """How one comparison ended, seen from its (first, second) orientation."""

    FIRST_WINS = 0
    SECOND_WINS = 1
    TIE = 2


@dataclass(frozen=True)
class PairCounts:
    """Aggregated comparisons: one row per unordered pair of models.

    Attributes
    ----------
    n_models : int
        Number of strengths; model indices run over ``range(n_models)``.
    pairs : NDArray[np.intp], shape (n_pairs, 2)
        ``(i, j)`` with ``i != j``; each unordered pair appears at most once.
    wins_first, wins_second, ties : NDArray[np.float64], shape (n_pairs,)
        Wins of ``i``, wins of ``j`` and ties. Non-negative; float so that bootstrap draws and
        weights need no second type.

    Raises
    ------
    RatingInputError
        Shapes disagree, an index is out of range or self-paired, or a count is negative or not
        finite.
    """

    n_models: int
    pairs: NDArray[np.intp]
    wins_first: NDArray[np.float64]
    wins_second: NDArray[np.float64]
    ties: NDArray[np.float64]

    def __post_init__(self) -> None:
        if self.n_models < 0:
            raise RatingInputError(f"n_models must be >= 0, got {self.n_models}")
        pairs = np.asarray(self.pairs)
        if pairs.ndim != 2 or pairs.shape[1] != 2 or not np.issubdtype(pairs.dtype, np.integer):
            raise RatingInputError(
                f"pairs must be integers of shape (n_pairs, 2), got {pairs.shape}"
            )
        n_pairs = pairs.shape[0]
        for name in ("wins_first", "wins_second", "ties"):
            values = np.asarray(getattr(self, name))
            if values.shape != (n_pairs,):
                raise RatingInputError(f"{name} must have shape ({n_pairs},), got {values.shape}")
            if not np.all(np.isfinite(values)) or np.any(values < 0):
                raise RatingInputError(f"{name} must be finite and non-negative")
            object.__setattr__(self, name, values.astype(np.float64, copy=False))
        if n_pairs and (pairs.min() < 0 or pairs.max() >= self.n_models):
            raise RatingInputError(f"pair indices must lie in [0, {self.n_models})")
        if np.any(pairs[:, 0] == pairs[:, 1]):
            raise RatingInputError("a model cannot be compared with itself")
        object.__setattr__(self, "pairs", pairs.astype(np.intp, copy=False))

    @property
    def totals(self) -> NDArray[np.float64]:
        """Comparisons per pair, shape ``(n_pairs,)``."""
        return self.wins_first + self.wins_second + self.ties

    @property
    def total(self) -> float:
        """All comparisons."""
        return float(self.totals.sum())

    def games_per_model(self) -> NDArray[np.float64]:
        """Comparisons each model took part in, shape ``(n_models,)``."""
        totals = self.totals
        games = np.bincount(self.pairs[:, 0], totals, self.n_models) + np.bincount(
            self.pairs[:, 1], totals, self.n_models
        )
        return games.astype(np.float64, copy=False)

    def edges(self) -> NDArray[np.intp]:
        """The pairs with at least one comparison, shape ``(n_edges, 2)``."""
        return self.pairs[self.totals > 0]

    def with_counts(
        self, wins_first: ArrayLike, wins_second: ArrayLike, ties: ArrayLike
    ) -> PairCounts:
        """The same pairs with other counts (a bootstrap draw)."""
        return PairCounts(
            self.n_models,
            self.pairs,
            np.asarray(wins_first, dtype=np.float64),
            np.asarray(wins_second, dtype=np.float64),
            np.asarray(ties, dtype=np.float64),
        )


def pair_counts_from_votes(
    n_models: int, first: ArrayLike, second: ArrayLike, outcomes: ArrayLike
) -> PairCounts:
    """Aggregate individual comparisons into canonical pair counts (lower index first).

    Parameters
    ----------
    n_models : int
        Number of models.
    first, second : array_like of int, shape (n_votes,)
        Model indices of the two sides of each comparison.
    outcomes : array_like of int, shape (n_votes,)
        ``Outcome`` codes: 0 first wins, 1 second wins, 2 tie.

    Raises
    ------
    RatingInputError
        An outcome code is not one of ``Outcome``, or the arrays disagree in shape.
    """
    a = np.asarray(first, dtype=np.intp)
    b = np.asarray(second, dtype=np.intp)
    y = np.asarray(outcomes)
    if not (a.shape == b.shape == y.shape) or a.ndim != 1:
        raise RatingInputError("first, second and outcomes must be 1-d arrays of equal length")
    if y.size and not np.isin(y, [o.value for o in Outcome]).all():
        raise RatingInputError("outcomes must be Outcome codes 0 (first wins), 1, or 2 (tie)")
    if a.size and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= n_models):
        raise RatingInputError(f"model indices must lie in [0, {n_models})")
    lo, hi = np.minimum(a, b), np.maximum(a, b)
    swapped = a > b
    lo_wins = ((y == Outcome.FIRST_WINS) & ~swapped) | ((y == Outcome.SECOND_WINS) & swapped)
    hi_wins = ((y == Outcome.SECOND_WINS) & ~swapped) | ((y == Outcome.FIRST_WINS) & swapped)
    key = lo * max(n_models, 1) + hi
    keys, index = np.unique(key, return_inverse=True)
    size = keys.size
    return PairCounts(
        n_models,
        np.column_stack([keys // max(n_models, 1), keys % max(n_models, 1)]).astype(np.intp),
        np.bincount(index, lo_wins, size).astype(np.float64),
        np.bincount(index, hi_wins, size).astype(np.float64),
        np.bincount(index, y == Outcome.TIE, size).astype(np.float64),
    )


@dataclass(frozen=True)
class RaoKupperFit:
    """The optimum of the default fit.

    Attributes
    ----------
    theta : NDArray[np.float64], shape (n_models + 1,)
        The optimiser vector :math:`(r, \\eta)`; warm-starts the next refit.
    strengths : NDArray[np.float64], shape (n_models,)
        Log-strengths :math:`r` (sum to zero per component up to solver tolerance).
    tie_threshold : float
        :math:`\\eta`.
    iterations, evaluations : int
        L-BFGS-B iterations and objective evaluations.
    objective : float
        :math:`f` at the optimum.
    """

    theta: NDArray[np.float64]
    strengths: NDArray[np.float64]
    tie_threshold: float
    iterations: int
    evaluations: int
    objective: float

    @property
    def is_tie_threshold_at_bound(self) -> bool:
        """Whether :math:`\\eta` stopped on ``ETA_FLOOR`` or ``ETA_CEILING``."""
        return _at_bound(self.tie_threshold)


def _at_bound(eta: float) -> bool:
    return is_at_bound(eta)


def _split(theta: NDArray[np.float64], counts: PairCounts) -> tuple[NDArray[np.float64], float]:
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (counts.n_models + 1,):
        raise RatingInputError(f"theta must have shape ({counts.n_models + 1},), got {theta.shape}")
    return theta[:-1], float(theta[-1])


def _difference(r: NDArray[np.float64], counts: PairCounts) -> NDArray[np.float64]:
    return r[counts.pairs[:, 0]] - r[counts.pairs[:, 1]]


def _outcome_counts(
    counts: PairCounts,
) -> tuple[NDArray[np.float64], NDArray[np.float64], NDArray[np.float64]]:
    return counts.wins_first, counts.wins_second, counts.ties


def negative_log_posterior(
    theta: NDArray[np.float64], counts: PairCounts, l2_penalty: float
) -> float:
    r"""The objective :math:`f(r, \eta)` of the module docstring."""
    r, eta = _split(theta, counts)
    d = _difference(r, counts)
    ll = row_log_likelihood(d, eta, *_outcome_counts(counts))
    return float(-ll.sum() + 0.5 * l2_penalty * (r @ r))


def gradient(
    theta: NDArray[np.float64], counts: PairCounts, l2_penalty: float
) -> NDArray[np.float64]:
    r""":math:`\nabla f`, shape ``(n_models + 1,)``.

    .. math::

        \frac{\partial f}{\partial r_m} = -\sum_{k: i_k = m} \ell_d^{(k)}
            + \sum_{k: j_k = m} \ell_d^{(k)} + \lambda r_m, \qquad
        \frac{\partial f}{\partial \eta} = -\sum_k \ell_\eta^{(k)}.
    """
    r, eta = _split(theta, counts)
    g = row_gradient(
        _difference(r, counts), eta, counts.wins_first, counts.wins_second, counts.ties
    )
    n = counts.n_models
    grad_r = np.bincount(counts.pairs[:, 1], g.d, n) - np.bincount(counts.pairs[:, 0], g.d, n)
    return np.append(grad_r + l2_penalty * r, -g.eta.sum())


def hessian(
    theta: NDArray[np.float64], counts: PairCounts, l2_penalty: float
) -> NDArray[np.float64]:
    r""":math:`\nabla^2 f`, shape ``(n_models + 1, n_models + 1)``.

    With :math:`a_k = e_{i_k} - e_{j_k}`: :math:`\nabla^2_{rr} f = -\sum_k \ell_{dd}^{(k)} a_k
    a_k^\top + \lambda I`, :math:`\nabla^2_{r\eta} f = -\sum_k \ell_{d\eta}^{(k)} a_k` and
    :math:`\partial^2 f / \partial\eta^2 = -\sum_k \ell_{\eta\eta}^{(k)}`.
    """
    r, eta = _split(theta, counts)
    c = row_curvature(
        _difference(r, counts), eta, counts.wins_first, counts.wins_second, counts.ties
    )
    n = counts.n_models
    i, j = counts.pairs[:, 0], counts.pairs[:, 1]
    h = np.zeros((n + 1, n + 1))
    h_rr = (
        np.bincount(i * n + i, -c.dd, n * n)
        + np.bincount(j * n + j, -c.dd, n * n)
        + np.bincount(i * n + j, c.dd, n * n)
        + np.bincount(j * n + i, c.dd, n * n)
    )
    h[:n, :n] = h_rr.reshape(n, n) + l2_penalty * np.eye(n)
    h_r_eta = np.bincount(j, c.d_eta, n) - np.bincount(i, c.d_eta, n)
    h[:n, n] = h[n, :n] = h_r_eta
    h[n, n] = -c.eta_eta.sum()
    return h


def _check_penalty(l2_penalty: float) -> None:
    if not (np.isfinite(l2_penalty) and l2_penalty > 0):
        raise RatingInputError(f"l2_penalty must be a positive number, got {l2_penalty!r}")


def cold_start(counts: PairCounts) -> NDArray[np.float64]:
    r"""Starting point of a from-scratch fit: equal strengths, :math:`\eta` from the tie rate.

    Between equals :math:`P(\text{tie}) = 2\sigma(\eta) - 1`, so the observed tie share :math:`s`
    gives :math:`\eta_0 = \operatorname{logit}\big((1 + s)/2\big)`, clipped to the bounds.
    """
    total = counts.total
    share = counts.ties.sum() / total if total > 0 else 0.0
    p = min((1.0 + share) / 2.0, 1.0 - 1e-12)
    eta0 = float(np.clip(np.log(p / (1.0 - p)), 2 * ETA_FLOOR, ETA_CEILING / 2))
    return np.append(np.zeros(counts.n_models), eta0)


def _centre_strengths(theta: NDArray[np.float64], counts: PairCounts) -> NDArray[np.float64]:
    """Finish the fit along the common shift of each component.

    The likelihood does not change when a component's strengths shift together, and the ridge
    is smallest when each component sums to zero, so centring is an exact step towards the
    minimiser; the solver approaches it only slowly because the ridge makes that direction
    almost flat.
    """
    labels = connected_components(counts.n_models, counts.edges())
    return np.append(centre_within_components(theta[:-1], labels), theta[-1])


def fit_rao_kupper(
    counts: PairCounts,
    *,
    l2_penalty: float,
    initial: NDArray[np.float64] | None = None,
) -> RaoKupperFit:
    """Fit strengths and the tie threshold by penalised maximum likelihood (L-BFGS-B).

    Parameters
    ----------
    counts : PairCounts
        Aggregated comparisons.
    l2_penalty : float
        Ridge strength :math:`\\lambda > 0` on the log-strengths (``RATING_RIDGE``).
    initial : NDArray[np.float64], shape (n_models + 1,), optional
        Warm start (a previous ``RaoKupperFit.theta``); default ``cold_start(counts)``.

    Returns
    -------
    RaoKupperFit

    Raises
    ------
    RatingInputError
        ``l2_penalty`` is not positive or ``initial`` has the wrong shape.
    RatingFitError
        L-BFGS-B did not report convergence.
    """
    _check_penalty(l2_penalty)
    x0 = cold_start(counts) if initial is None else np.array(initial, dtype=np.float64)
    if x0.shape != (counts.n_models + 1,) or not np.all(np.isfinite(x0)):
        raise RatingInputError(f"initial must be finite with shape ({counts.n_models + 1},)")
    x0[-1] = np.clip(x0[-1], ETA_FLOOR, ETA_CEILING)
    # The objective grows with the number of votes; dividing by it keeps the solver's
    # tolerances meaningful from ten votes to millions without moving the minimiser.
    scale = 1.0 / max(counts.total, 1.0)

    def value_and_gradient(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        return (
            scale * negative_log_posterior(theta, counts, l2_penalty),
            scale * gradient(theta, counts, l2_penalty),
        )

    curvature = scale * np.diag(hessian(x0, counts, l2_penalty))
    result = minimise_bounded(value_and_gradient, x0, curvature=curvature)
    theta = _centre_strengths(np.asarray(result.x, dtype=np.float64), counts)
    return RaoKupperFit(
        theta=theta,
        strengths=theta[:-1].copy(),
        tie_threshold=float(theta[-1]),
        iterations=int(result.nit),
        evaluations=int(result.nfev),
        objective=float(result.fun) / scale,
    )
