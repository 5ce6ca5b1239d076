r"""The display scale on arrays: the kernel's ``arena_api.core.scale`` applied to NumPy values.

A strength :math:`r` on the natural log-odds scale is displayed as

.. math::

    R = \mathrm{INIT\_RATING} + \mathrm{SCALE} \cdot r,
    \qquad \mathrm{SCALE} = \frac{400}{\ln \mathrm{BASE}},

so a gap of 400 display points multiplies the expected odds of winning by ``BASE`` = 10, the
classic Elo convention. Standard errors scale by ``SCALE`` alone.
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike, NDArray
from scipy.stats import norm

from arena_api.core.scale import BASE, INIT_RATING, POINTS_PER_ELO_GAP, SCALE
from arena_rating._errors import RatingInputError

__all__ = [
    "BASE",
    "DEFAULT_CONFIDENCE_LEVEL",
    "INIT_RATING",
    "SCALE",
    "POINTS_PER_ELO_GAP",
    "to_display",
    "to_display_stderr",
    "z_value",
]

DEFAULT_CONFIDENCE_LEVEL = 0.95


def to_display(strengths: ArrayLike) -> NDArray[np.float64]:
    r"""Map centred log-odds strengths onto the display scale, :math:`1000 + \mathrm{SCALE}\,r`."""
    return INIT_RATING + SCALE * np.asarray(strengths, dtype=np.float64)


def to_display_stderr(stderr: ArrayLike) -> NDArray[np.float64]:
    """Map standard errors on the log-odds scale onto display points."""
    return SCALE * np.asarray(stderr, dtype=np.float64)


def z_value(confidence_level: float) -> float:
    r"""The two-sided normal quantile :math:`z = \Phi^{-1}\big((1 + c)/2\big)` of a level ``c``.

    Raises
    ------
    RatingInputError
        ``confidence_level`` is not strictly between 0 and 1.
    """
    if not 0.0 < confidence_level < 1.0:
        raise RatingInputError(f"confidence_level must be in (0, 1), got {confidence_level!r}")
    return float(norm.ppf(0.5 + confidence_level / 2.0))
