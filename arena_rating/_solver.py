"""The one optimiser call both fits share: L-BFGS-B with the tie threshold bounded."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
from numpy.typing import NDArray
from scipy.optimize import OptimizeResult, minimize

from arena_rating._errors import RatingFitError
from arena_rating._ordered_logit import ETA_CEILING, ETA_FLOOR

__all__ = [
    "FTOL",
    "GTOL",
    "HISTORY_SIZE",
    "LINE_SEARCH_GTOL",
    "MAX_ITERATIONS",
    "MIN_CURVATURE",
    "minimise_bounded",
]

#: L-BFGS-B stopping rules, applied to the objective divided by the number of comparisons:
#: relative reduction of f (``ftol``) and largest projected gradient component (``gtol``)
#: [scipy doc].
FTOL = 1e-13
GTOL = 1e-9
MAX_ITERATIONS = 15_000
#: A failed line search is still accepted when the projected gradient is below this.
LINE_SEARCH_GTOL = 1e-7
#: Corrections kept by the quasi-Newton approximation (SciPy's default).
HISTORY_SIZE = 10
#: Floor of the preconditioner's curvature (objective per comparison), so a parameter without
#: information (a model with no comparison: curvature = ridge / N) is not scaled towards zero.
MIN_CURVATURE = 1e-12

ValueAndGradient = Callable[[NDArray[np.float64]], tuple[float, NDArray[np.float64]]]


def minimise_bounded(
    fun: ValueAndGradient, x0: NDArray[np.float64], *, curvature: NDArray[np.float64]
) -> OptimizeResult:
    r"""Minimise ``fun`` (returning value and gradient) over free parameters and a last, bounded
    tie threshold, in diagonally rescaled coordinates.

    The solver works on :math:`z = D^{1/2}\theta` with :math:`D` = ``curvature``, the diagonal of
    the objective's Hessian at ``x0``: a Jacobi preconditioner. The rescaled problem is close to
    isotropic, so L-BFGS-B needs a handful of iterations from a warm start instead of rebuilding
    the curvature of badly scaled strengths first. Whatever the scaling, the minimiser is the
    same; only the route to it changes.

    Raises
    ------
    RatingFitError
        ``OptimizeResult.success`` is false (iteration limit, failed line search, ...).
    """
    scale = np.sqrt(np.clip(curvature, MIN_CURVATURE, None))
    lower, upper = ETA_FLOOR * scale[-1], ETA_CEILING * scale[-1]
    bounds = [(None, None)] * (x0.shape[0] - 1) + [(lower, upper)]

    def rescaled(z: NDArray[np.float64]) -> tuple[float, NDArray[np.float64]]:
        value, grad = fun(z / scale)
        return value, grad / scale

    z0 = x0 * scale
    z0[-1] = np.clip(z0[-1], lower, upper)
    result = minimize(
        rescaled,
        z0,
        jac=True,
        method="L-BFGS-B",
        bounds=bounds,
        options={"ftol": FTOL, "gtol": GTOL, "maxiter": MAX_ITERATIONS, "maxcor": HISTORY_SIZE},
    )
    if not result.success:
        residual = _projected_gradient(result.x, np.asarray(result.jac), lower, upper)
        # Near the optimum the line search can run out of floating-point precision before the
        # gradient test passes ("ABNORMAL"); a point whose gradient is already this small is a
        # minimiser to well within a thousandth of a standard error, so it is accepted.
        if not (result.status == 2 and residual <= LINE_SEARCH_GTOL):
            raise RatingFitError(
                f"L-BFGS-B did not converge: {result.message} "
                f"(projected gradient {residual:.3g} after {result.nit} iterations)"
            )
    result.x = np.asarray(result.x, dtype=np.float64) / scale
    return result


def _projected_gradient(
    z: NDArray[np.float64], grad: NDArray[np.float64], lower: float, upper: float
) -> float:
    """Largest gradient component that could still move the point inside the bounds."""
    projected = np.array(grad, dtype=np.float64)
    eta, g_eta = z[-1], projected[-1]
    if (eta <= lower and g_eta > 0) or (eta >= upper and g_eta < 0):
        projected[-1] = 0.0
    return float(np.max(np.abs(projected))) if projected.size else 0.0
