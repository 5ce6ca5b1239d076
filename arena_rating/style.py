r"""The style-controlled fit: strengths and voter-bias coefficients estimated jointly.

Model
-----
For a vote on a matchup with model :math:`a` in slot A and :math:`b` in slot B, with the
per-vote style delta :math:`x \in \mathbb{R}^5` (slot A minus slot B, see ``STYLE_FEATURES``),

.. math::

    d = r_a - r_b + \beta^\top \tilde x, \qquad
    P(A \succ B) = \sigma(d - \eta), \quad P(B \succ A) = \sigma(-d - \eta), \quad
    P(\text{tie}) = \sigma(d + \eta) - \sigma(d - \eta),

the same Rao-Kupper likelihood as the default fit, on raw votes because :math:`x` varies per
vote. :math:`\tilde x_j = x_j / s_j` rescales each continuous delta by its standard deviation
:math:`s_j` over the votes (no centring, so the ``position`` coefficient stays the advantage of
the left slot between equally styled answers); ``position`` is the constant 1 and is not scaled.
The objective is

.. math::

    f(r, \beta, \eta) = -\sum_v \ell_v + \tfrac{1}{2}\lambda\big(\lVert r\rVert^2
        + \lVert\beta\rVert^2\big),

with ``l2_penalty`` :math:`= \lambda` (``STYLE_RIDGE``) on strengths and coefficients, never on
:math:`\eta`. The stored coefficients are on the standardised scale (log-odds per standard
deviation of the delta; log-odds outright for ``position``), which is what the leaderboard's
``styleControl`` block restates; ``StyleFit.coefficients_per_unit`` gives them per readable
unit (``STYLE_UNITS``). A feature whose delta has no spread carries no information: its column
stays zero and its coefficient stays 0.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena_api.core.style_features import POSITION, STYLE_FEATURES, STYLE_UNITS
from arena_rating._errors import RatingInputError
from arena_rating._ordered_logit import (
    ETA_CEILING,
    ETA_FLOOR,
    RowCurvature,
    is_at_bound,
    row_curvature,
    single_outcome_value_and_gradient,
)
from arena_rating._solver import minimise_bounded
from arena_rating.bradley_terry import Outcome
from arena_rating.confidence import anchored_standard_errors, invert_hessian
from arena_rating.connectivity import centre_within_components, connected_components

__all__ = [
    "STYLE_FEATURES",
    "STYLE_UNITS",
    "StyleFit",
    "StyleVotes",
    "fit_style",
    "style_gradient",
    "style_hessian",
    "style_objective",
    "style_standard_errors",
]

_POSITION = STYLE_FEATURES.index(POSITION)


@dataclass(frozen=True)
class StyleVotes:
    """Raw votes with their style deltas.

    Attributes
    ----------
    n_models : int
        Number of strengths.
    slot_a, slot_b : NDArray[np.intp], shape (n_votes,)
        Model index shown in slot A (left) and slot B (right).
    outcomes : NDArray[np.int8], shape (n_votes,)
        ``Outcome`` codes from slot A's side: 0 A wins, 1 B wins, 2 tie.
    features : NDArray[np.float64], shape (n_votes, 5)
        Raw deltas A minus B in ``STYLE_FEATURES`` order; the ``position`` column is 1.

    Raises
    ------
    RatingInputError
        Shapes disagree, an index or outcome code is invalid, or a feature is not finite.
    """

    n_models: int
    slot_a: NDArray[np.intp]
    slot_b: NDArray[np.intp]
    outcomes: NDArray[np.int8]
    features: NDArray[np.float64]

    def __post_init__(self) -> None:
        a = np.asarray(self.slot_a, dtype=np.intp)
        b = np.asarray(self.slot_b, dtype=np.intp)
        y = np.asarray(self.outcomes)
        x = np.asarray(self.features, dtype=np.float64)
        n = a.shape[0] if a.ndim == 1 else -1
        if a.ndim != 1 or b.shape != (n,) or y.shape != (n,):
            raise RatingInputError("slot_a, slot_b and outcomes must be 1-d of equal length")
        if x.shape != (n, len(STYLE_FEATURES)):
            raise RatingInputError(f"features must have shape ({n}, {len(STYLE_FEATURES)})")
        if n and (min(a.min(), b.min()) < 0 or max(a.max(), b.max()) >= self.n_models):
            raise RatingInputError(f"model indices must lie in [0, {self.n_models})")
        if np.any(a == b):
            raise RatingInputError("a model cannot be compared with itself")
        if n and not np.isin(y, [o.value for o in Outcome]).all():
            raise RatingInputError("outcomes must be Outcome codes 0, 1 or 2")
        if not np.all(np.isfinite(x)):
            raise RatingInputError("style features must be finite (exclude votes missing one)")
        object.__setattr__(self, "slot_a", a)
        object.__setattr__(self, "slot_b", b)
        object.__setattr__(self, "outcomes", y.astype(np.int8))
        object.__setattr__(self, "features", x)

    @property
    def n_votes(self) -> int:
        return int(self.slot_a.shape[0])

    def edges(self) -> NDArray[np.intp]:
        """Compared pairs (one row per vote), shape ``(n_votes, 2)``."""
        return np.column_stack([self.slot_a, self.slot_b])

    def games_per_model(self) -> NDArray[np.int64]:
        return np.bincount(self.slot_a, minlength=self.n_models) + np.bincount(
            self.slot_b, minlength=self.n_models
        )


@dataclass(frozen=True)
class _Design:
    """Votes reordered [A wins | B wins | ties], with standardised features."""

    n_models: int
    a: NDArray[np.intp]
    b: NDArray[np.intp]
    x: NDArray[np.float64]
    scales: NDArray[np.float64]
    n_first: int
    n_second: int
    outcomes: NDArray[np.int8] = field(repr=False)

    @property
    def n_params(self) -> int:
        return self.n_models + int(self.x.shape[1]) + 1


def _feature_scales(features: NDArray[np.float64]) -> NDArray[np.float64]:
    """Standard deviation of each delta column (1 for ``position`` and for a column without
    spread)."""
    scales = features.std(axis=0) if features.shape[0] else np.ones(features.shape[1])
    scales[_POSITION] = 1.0
    scales[~(scales > 0)] = 1.0
    return scales


def _design(votes: StyleVotes) -> _Design:
    order = np.argsort(votes.outcomes, kind="stable")
    y = votes.outcomes[order]
    scales = _feature_scales(votes.features)
    x = np.ascontiguousarray(votes.features[order] / scales)
    return _Design(
        n_models=votes.n_models,
        a=votes.slot_a[order],
        b=votes.slot_b[order],
        x=x,
        scales=scales,
        n_first=int(np.count_nonzero(y == Outcome.FIRST_WINS)),
        n_second=int(np.count_nonzero(y == Outcome.SECOND_WINS)),
        outcomes=y,
    )


def _unpack(
    theta: NDArray[np.float64], design: _Design
) -> tuple[NDArray[np.float64], NDArray[np.float64], float]:
    theta = np.asarray(theta, dtype=np.float64)
    if theta.shape != (design.n_params,):
        raise RatingInputError(f"theta must have shape ({design.n_params},), got {theta.shape}")
    n = design.n_models
    return theta[:n], theta[n:-1], float(theta[-1])


def _value_and_gradient(
    theta: NDArray[np.float64], design: _Design, l2_penalty: float
) -> tuple[float, NDArray[np.float64]]:
    r, beta, eta = _unpack(theta, design)
    d = r[design.a] - r[design.b] + design.x @ beta
    value, g_d, g_eta = single_outcome_value_and_gradient(d, eta, design.n_first, design.n_second)
    n = design.n_models
    grad_r = np.bincount(design.b, g_d, n) - np.bincount(design.a, g_d, n) + l2_penalty * r
    grad_beta = -(g_d @ design.x) + l2_penalty * beta
    penalty = 0.5 * l2_penalty * float(r @ r + beta @ beta)
    return -value + penalty, np.concatenate([grad_r, grad_beta, [-g_eta]])


def style_objective(theta: NDArray[np.float64], votes: StyleVotes, l2_penalty: float) -> float:
    r"""The objective :math:`f(r, \beta, \eta)` of the module docstring (standardised features)."""
    return _value_and_gradient(theta, _design(votes), l2_penalty)[0]


def style_gradient(
    theta: NDArray[np.float64], votes: StyleVotes, l2_penalty: float
) -> NDArray[np.float64]:
    r""":math:`\nabla f`, shape ``(n_models + 5 + 1,)``: by :math:`r`, :math:`\beta`, :math:`\eta`.

    .. math::

        \nabla_r f = -\sum_v \ell_d^{(v)} (e_{a_v} - e_{b_v}) + \lambda r, \quad
        \nabla_\beta f = -\sum_v \ell_d^{(v)} \tilde x_v + \lambda\beta, \quad
        \partial_\eta f = -\sum_v \ell_\eta^{(v)}.
    """
    return _value_and_gradient(theta, _design(votes), l2_penalty)[1]


def _curvature(d: NDArray[np.float64], eta: float, outcomes: NDArray[np.int8]) -> RowCurvature:
    return row_curvature(
        d,
        eta,
        (outcomes == Outcome.FIRST_WINS).astype(np.float64),
        (outcomes == Outcome.SECOND_WINS).astype(np.float64),
        (outcomes == Outcome.TIE).astype(np.float64),
    )


def _hessian(theta: NDArray[np.float64], design: _Design, l2_penalty: float) -> NDArray[np.float64]:
    r, beta, eta = _unpack(theta, design)
    d = r[design.a] - r[design.b] + design.x @ beta
    c = _curvature(d, eta, design.outcomes)
    n, p = design.n_models, design.x.shape[1]
    a, b = design.a, design.b
    h = np.zeros((n + p + 1, n + p + 1))
    h_rr = (
        np.bincount(a * n + a, -c.dd, n * n)
        + np.bincount(b * n + b, -c.dd, n * n)
        + np.bincount(a * n + b, c.dd, n * n)
        + np.bincount(b * n + a, c.dd, n * n)
    )
    h[:n, :n] = h_rr.reshape(n, n) + l2_penalty * np.eye(n)
    weighted = -c.dd[:, None] * design.x  # shape (n_votes, p)
    h_r_beta = np.stack(
        [np.bincount(a, weighted[:, j], n) - np.bincount(b, weighted[:, j], n) for j in range(p)],
        axis=1,
    )
    h[:n, n : n + p] = h_r_beta
    h[n : n + p, :n] = h_r_beta.T
    h[n : n + p, n : n + p] = design.x.T @ weighted + l2_penalty * np.eye(p)
    h_r_eta = np.bincount(b, c.d_eta, n) - np.bincount(a, c.d_eta, n)
    h_beta_eta = -(c.d_eta @ design.x)
    h[:n, -1] = h[-1, :n] = h_r_eta
    h[n : n + p, -1] = h[-1, n : n + p] = h_beta_eta
    h[-1, -1] = -c.eta_eta.sum()
    return h


def _hessian_diagonal(
    theta: NDArray[np.float64], design: _Design, l2_penalty: float
) -> NDArray[np.float64]:
    """The diagonal of ``_hessian`` without the off-diagonal blocks (the preconditioner)."""
    r, beta, eta = _unpack(theta, design)
    d = r[design.a] - r[design.b] + design.x @ beta
    c = _curvature(d, eta, design.outcomes)
    n = design.n_models
    diag_r = np.bincount(design.a, -c.dd, n) + np.bincount(design.b, -c.dd, n) + l2_penalty
    diag_beta = -(c.dd @ design.x**2) + l2_penalty
    return np.concatenate([diag_r, diag_beta, [-c.eta_eta.sum()]])


def style_hessian(
    theta: NDArray[np.float64], votes: StyleVotes, l2_penalty: float
) -> NDArray[np.float64]:
    r""":math:`\nabla^2 f`, shape ``(n_models + 6, n_models + 6)``.

    With :math:`g_v = (e_{a_v} - e_{b_v}, \tilde x_v)` the gradient of :math:`d_v` by
    :math:`(r, \beta)`: :math:`\nabla^2_{(r,\beta)} f = -\sum_v \ell_{dd}^{(v)} g_v g_v^\top +
    \lambda I`, the column by :math:`\eta` is :math:`-\sum_v \ell_{d\eta}^{(v)} g_v`, and
    :math:`\partial^2_\eta f = -\sum_v \ell_{\eta\eta}^{(v)}`.
    """
    return _hessian(theta, _design(votes), l2_penalty)


@dataclass(frozen=True)
class StyleFit:
    """The optimum of the style-controlled fit.

    Attributes
    ----------
    theta : NDArray[np.float64], shape (n_models + 6,)
        Optimiser vector :math:`(r, \\beta, \\eta)`; warm-starts the next refit.
    strengths : NDArray[np.float64], shape (n_models,)
        Style-controlled log-strengths.
    coefficients : NDArray[np.float64], shape (5,)
        :math:`\\beta` on the standardised scale, ``STYLE_FEATURES`` order.
    feature_scales : NDArray[np.float64], shape (5,)
        The :math:`s_j` used (1 for ``position`` and for features without spread).
    informative : NDArray[np.bool_], shape (5,)
        Whether each feature's delta had any spread.
    tie_threshold : float
    iterations, evaluations : int
    objective : float
    """

    theta: NDArray[np.float64]
    strengths: NDArray[np.float64]
    coefficients: NDArray[np.float64]
    feature_scales: NDArray[np.float64]
    informative: NDArray[np.bool_]
    tie_threshold: float
    iterations: int
    evaluations: int
    objective: float

    @property
    def coefficients_per_unit(self) -> dict[str, tuple[float, str]]:
        """Each continuous coefficient in log-odds per ``STYLE_UNITS`` amount of the raw delta."""
        result: dict[str, tuple[float, str]] = {}
        for j, name in enumerate(STYLE_FEATURES):
            if name in STYLE_UNITS and self.informative[j]:
                amount, label = STYLE_UNITS[name].amount, STYLE_UNITS[name].label
                result[name] = (
                    float(self.coefficients[j] / self.feature_scales[j] * amount),
                    label,
                )
        return result

    @property
    def is_tie_threshold_at_bound(self) -> bool:
        return is_at_bound(self.tie_threshold)


def fit_style(
    votes: StyleVotes,
    *,
    l2_penalty: float,
    initial: NDArray[np.float64] | None = None,
) -> StyleFit:
    """Fit strengths, style coefficients and the tie threshold jointly (L-BFGS-B).

    Parameters
    ----------
    votes : StyleVotes
        Raw votes with complete style deltas.
    l2_penalty : float
        Ridge :math:`\\lambda > 0` on strengths and coefficients (``STYLE_RIDGE``).
    initial : NDArray[np.float64], shape (n_models + 6,), optional
        Warm start (a previous ``StyleFit.theta``).

    Raises
    ------
    RatingInputError
        ``l2_penalty`` is not positive or ``initial`` has the wrong shape.
    RatingFitError
        L-BFGS-B did not report convergence.
    """
    if not (np.isfinite(l2_penalty) and l2_penalty > 0):
        raise RatingInputError(f"l2_penalty must be a positive number, got {l2_penalty!r}")
    design = _design(votes)
    if initial is None:
        n_ties = votes.n_votes - design.n_first - design.n_second
        share = n_ties / votes.n_votes if votes.n_votes else 0.0
        p = min((1.0 + share) / 2.0, 1.0 - 1e-12)
        eta0 = float(np.clip(np.log(p / (1.0 - p)), 2 * ETA_FLOOR, ETA_CEILING / 2))
        x0 = np.append(np.zeros(design.n_params - 1), eta0)
    else:
        x0 = np.array(initial, dtype=np.float64)
        if x0.shape != (design.n_params,) or not np.all(np.isfinite(x0)):
            raise RatingInputError(f"initial must be finite with shape ({design.n_params},)")
        x0[-1] = np.clip(x0[-1], ETA_FLOOR, ETA_CEILING)
    scale = 1.0 / max(votes.n_votes, 1)

    def value_and_gradient(theta: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        value, grad = _value_and_gradient(theta, design, l2_penalty)
        return scale * value, scale * grad

    curvature = scale * _hessian_diagonal(x0, design, l2_penalty)
    result = minimise_bounded(value_and_gradient, x0, curvature=curvature)
    theta = np.asarray(result.x, dtype=np.float64)
    n = votes.n_models
    # The exact last step along each component's common shift (see bradley_terry).
    theta[:n] = centre_within_components(theta[:n], connected_components(n, votes.edges()))
    informative = np.asarray(votes.features.std(axis=0) > 0) if votes.n_votes else np.zeros(5, bool)
    informative[_POSITION] = votes.n_votes > 0
    return StyleFit(
        theta=theta,
        strengths=theta[:n].copy(),
        coefficients=theta[n:-1].copy(),
        feature_scales=design.scales,
        informative=informative,
        tie_threshold=float(theta[-1]),
        iterations=int(result.nit),
        evaluations=int(result.nfev),
        objective=float(result.fun) / scale,
    )


def style_standard_errors(
    fit: StyleFit, votes: StyleVotes, *, l2_penalty: float, labels: ArrayLike
) -> tuple[NDArray[np.float64], NDArray[np.float64]]:
    """Standard errors (log-odds) of the centred strengths and of the standardised coefficients.

    Returns
    -------
    strengths : NDArray[np.float64], shape (n_models,)
        Through the anchoring contrast, prior-wide for a model alone in its component.
    coefficients : NDArray[np.float64], shape (5,)

    Raises
    ------
    RatingFitError
        The Hessian at ``fit`` is not positive definite.
    """
    design = _design(votes)
    n = votes.n_models
    fixed = [design.n_params - 1] if fit.is_tie_threshold_at_bound or votes.n_votes == 0 else []
    covariance = invert_hessian(_hessian(fit.theta, design, l2_penalty), fixed=fixed)
    strengths = anchored_standard_errors(covariance[:n, :n], labels)
    coefficients = np.sqrt(np.clip(np.diag(covariance)[n:-1], 0.0, None))
    return strengths, coefficients
