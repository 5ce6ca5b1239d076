r"""From a fit to the rows the leaderboard reads: centring, intervals, display scale.

Pure functions on arrays. ``rate_pairs`` runs the default pipeline on aggregated counts (fit,
components, Fisher intervals) and ``rate_style`` the style-controlled one on raw votes; both
centre the strengths within each connected component and map them onto the display scale
:math:`1000 + (400/\ln 10)\,r` with a symmetric interval :math:`\pm z \cdot \mathrm{stderr}`.

Defined results on degenerate input
-----------------------------------
- **No models** (empty database): nothing to rate; the worker writes nothing.
- **One vote in total**: both models share a component; the ridge keeps the winner's lead finite
  (a few hundred points) with a wide interval.
- **A model with no kept comparison** (all its votes excluded) or alone in its component: rating
  1000, the ridge prior's standard error :math:`\mathrm{SCALE}/\sqrt{\lambda}` (1737 points at
  :math:`\lambda = 0.01`), a finite interval.
- **A model with zero decisive votes** (only ties): it is still connected and rated; ties say it
  is close to the models it tied with.
- **All ties**: :math:`\eta` stops at ``ETA_CEILING``, every strength is 0 (rating 1000) and the
  intervals are as wide as the prior allows, since ties between equals carry almost no
  information about differences.
- **Disconnected comparisons**: each component is centred on 1000 separately and carries its own
  ``component_id`` (0 is the largest); ratings are comparable only within a component.
"""

from __future__ import annotations

import uuid
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

import numpy as np
from numpy.typing import ArrayLike, NDArray

from arena_rating._errors import RatingInputError
from arena_rating._scale import DEFAULT_CONFIDENCE_LEVEL, to_display, to_display_stderr
from arena_rating.bradley_terry import PairCounts, RaoKupperFit, fit_rao_kupper
from arena_rating.confidence import confidence_bounds, fisher_standard_errors
from arena_rating.connectivity import centre_within_components, connected_components
from arena_rating.style import (
    STYLE_FEATURES,
    StyleFit,
    StyleVotes,
    fit_style,
    style_standard_errors,
)

__all__ = [
    "RatingReport",
    "RatingRows",
    "StyleReport",
    "align_warm_start",
    "drift_in_standard_errors",
    "rate_pairs",
    "rate_style",
    "summarise_pairs",
    "summarise_style",
    "tabulate",
]


@dataclass(frozen=True)
class RatingRows:
    """One pass's ratings on the display scale; arrays of shape ``(n_models,)``.

    Raises
    ------
    RatingInputError
        Lengths differ, a value is not finite, a lower bound exceeds its upper bound or a
        standard error is negative.
    """

    model_ids: tuple[uuid.UUID, ...]
    rating: NDArray[np.float64]
    stderr: NDArray[np.float64]
    ci_lower: NDArray[np.float64]
    ci_upper: NDArray[np.float64]
    component: NDArray[np.intp]
    games: NDArray[np.int64]

    def __post_init__(self) -> None:
        n = len(self.model_ids)
        for name in ("rating", "stderr", "ci_lower", "ci_upper", "component", "games"):
            values = np.asarray(getattr(self, name))
            if values.shape != (n,):
                raise RatingInputError(f"{name} must have shape ({n},), got {values.shape}")
            if not np.all(np.isfinite(values)):
                raise RatingInputError(f"{name} must be finite (never NaN or infinity)")
        if np.any(self.ci_lower > self.ci_upper) or np.any(self.stderr < 0):
            raise RatingInputError("intervals must be ordered and standard errors non-negative")

    def records(self) -> list[dict[str, Any]]:
        return [
            {
                "model_id": model_id,
                "rating": float(self.rating[i]),
                "stderr": float(self.stderr[i]),
                "ci_lower": float(self.ci_lower[i]),
                "ci_upper": float(self.ci_upper[i]),
                "component_id": int(self.component[i]),
                "games": int(self.games[i]),
            }
            for i, model_id in enumerate(self.model_ids)
        ]


def tabulate(
    model_ids: Sequence[uuid.UUID],
    strengths: ArrayLike,
    stderr: ArrayLike,
    labels: ArrayLike,
    games: ArrayLike,
    *,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
) -> RatingRows:
    """Display-scale rows from centred log-odds strengths and their standard errors."""
    rating = to_display(strengths)
    display_se = to_display_stderr(stderr)
    lower, upper = confidence_bounds(rating, display_se, confidence_level)
    return RatingRows(
        model_ids=tuple(model_ids),
        rating=rating,
        stderr=display_se,
        ci_lower=lower,
        ci_upper=upper,
        component=np.asarray(labels, dtype=np.intp),
        games=np.rint(np.asarray(games, dtype=np.float64)).astype(np.int64),
    )


@dataclass(frozen=True)
class RatingReport:
    """A default pass's result.

    Attributes
    ----------
    rows : RatingRows
        What ``write_ratings`` stores.
    fit : RaoKupperFit
        The optimum (``fit.theta`` warm-starts the next refit).
    labels : NDArray[np.intp], shape (n_models,)
        Component of each model.
    strengths, stderr : NDArray[np.float64], shape (n_models,)
        Centred strengths and their standard errors, log-odds scale.
    """

    rows: RatingRows
    fit: RaoKupperFit
    labels: NDArray[np.intp]
    strengths: NDArray[np.float64]
    stderr: NDArray[np.float64]

    @property
    def n_components(self) -> int:
        return int(self.labels.max()) + 1 if self.labels.size else 0


def rate_pairs(
    model_ids: Sequence[uuid.UUID],
    counts: PairCounts,
    *,
    l2_penalty: float,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
    initial: NDArray[np.float64] | None = None,
) -> RatingReport:
    """Fit, split into components, centre, attach Fisher intervals, map to the display scale.

    Raises
    ------
    RatingInputError
        ``model_ids`` and ``counts.n_models`` disagree, or an argument is out of range.
    RatingFitError
        The fit did not converge or its Hessian is not positive definite.
    """
    _check_ids(model_ids, counts.n_models)
    fit = fit_rao_kupper(counts, l2_penalty=l2_penalty, initial=initial)
    return summarise_pairs(
        model_ids, counts, fit, l2_penalty=l2_penalty, confidence_level=confidence_level
    )


def summarise_pairs(
    model_ids: Sequence[uuid.UUID],
    counts: PairCounts,
    fit: RaoKupperFit,
    *,
    l2_penalty: float,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
) -> RatingReport:
    """The steps of ``rate_pairs`` after the fit: components, intervals, display rows.

    Raises
    ------
    RatingInputError
        ``model_ids`` and ``counts.n_models`` disagree.
    RatingFitError
        The Hessian at ``fit`` is not positive definite.
    """
    _check_ids(model_ids, counts.n_models)
    labels = connected_components(counts.n_models, counts.edges())
    strengths = centre_within_components(fit.strengths, labels)
    stderr = fisher_standard_errors(fit, counts, l2_penalty=l2_penalty, labels=labels)
    rows = tabulate(
        model_ids,
        strengths,
        stderr,
        labels,
        counts.games_per_model(),
        confidence_level=confidence_level,
    )
    return RatingReport(rows, fit, labels, strengths, stderr)


def _check_ids(model_ids: Sequence[uuid.UUID], n_models: int) -> None:
    if len(model_ids) != n_models:
        raise RatingInputError(f"{len(model_ids)} model ids for {n_models} models")


@dataclass(frozen=True)
class StyleReport:
    """A style pass's result: rows, the fit, components, and the coefficients' standard errors
    (standardised scale, ``STYLE_FEATURES`` order)."""

    rows: RatingRows
    fit: StyleFit
    labels: NDArray[np.intp]
    coefficient_stderr: NDArray[np.float64]

    @property
    def coefficients(self) -> dict[str, float]:
        return {
            name: float(v) for name, v in zip(STYLE_FEATURES, self.fit.coefficients, strict=True)
        }


def rate_style(
    model_ids: Sequence[uuid.UUID],
    votes: StyleVotes,
    *,
    l2_penalty: float,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
    initial: NDArray[np.float64] | None = None,
) -> StyleReport:
    """The style-controlled counterpart of ``rate_pairs`` on raw votes.

    Raises
    ------
    RatingInputError
        ``model_ids`` and ``votes.n_models`` disagree, or an argument is out of range.
    RatingFitError
        The fit did not converge or its Hessian is not positive definite.
    """
    _check_ids(model_ids, votes.n_models)
    fit = fit_style(votes, l2_penalty=l2_penalty, initial=initial)
    return summarise_style(
        model_ids, votes, fit, l2_penalty=l2_penalty, confidence_level=confidence_level
    )


def summarise_style(
    model_ids: Sequence[uuid.UUID],
    votes: StyleVotes,
    fit: StyleFit,
    *,
    l2_penalty: float,
    confidence_level: float = DEFAULT_CONFIDENCE_LEVEL,
) -> StyleReport:
    """The steps of ``rate_style`` after the fit: components, intervals, display rows.

    Raises
    ------
    RatingInputError
        ``model_ids`` and ``votes.n_models`` disagree.
    RatingFitError
        The Hessian at ``fit`` is not positive definite.
    """
    _check_ids(model_ids, votes.n_models)
    labels = connected_components(votes.n_models, votes.edges())
    strengths = centre_within_components(fit.strengths, labels)
    stderr, coefficient_stderr = style_standard_errors(
        fit, votes, l2_penalty=l2_penalty, labels=labels
    )
    rows = tabulate(
        model_ids,
        strengths,
        stderr,
        labels,
        votes.games_per_model(),
        confidence_level=confidence_level,
    )
    return StyleReport(rows, fit, labels, coefficient_stderr)


def align_warm_start(
    previous_ids: Sequence[uuid.UUID],
    previous_theta: NDArray[np.float64],
    model_ids: Sequence[uuid.UUID],
) -> NDArray[np.float64]:
    """Carry a previous optimiser vector over to a new model set.

    Strengths of models present in both sets are kept, new models start at 0, and the trailing
    non-strength parameters (style coefficients, tie threshold) are kept as they were.
    """
    n_previous = len(previous_ids)
    tail = np.asarray(previous_theta, dtype=np.float64)[n_previous:]
    position = {model_id: i for i, model_id in enumerate(previous_ids)}
    strengths = np.array(
        [previous_theta[position[m]] if m in position else 0.0 for m in model_ids],
        dtype=np.float64,
    )
    return np.concatenate([strengths, tail])


def drift_in_standard_errors(
    warm: ArrayLike, cold: ArrayLike, labels: ArrayLike, stderr: ArrayLike
) -> float:
    """Largest gap between two fits' centred strengths, in units of each model's standard error."""
    gap = np.abs(centre_within_components(warm, labels) - centre_within_components(cold, labels))
    se = np.asarray(stderr, dtype=np.float64)
    return float(np.max(gap / se)) if gap.size else 0.0
