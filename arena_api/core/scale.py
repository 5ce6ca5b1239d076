r"""The Elo-like display scale of every rating, named once.

A strength :math:`r` on the natural log-odds scale is displayed as

.. math::

    R = \mathrm{INIT\_RATING} + \mathrm{SCALE} \cdot r,
    \qquad \mathrm{SCALE} = \frac{400}{\ln \mathrm{BASE}},

so a gap of 400 display points multiplies the expected odds of winning by ``BASE`` = 10, the
classic Elo convention. Standard errors and coefficients scale by ``SCALE`` alone. The rating
process writes ratings on this scale; the server reads them back to log-odds with it.
"""

from __future__ import annotations

import math

__all__ = ["BASE", "INIT_RATING", "POINTS_PER_ELO_GAP", "SCALE", "to_display", "to_log_odds"]

BASE = 10.0
POINTS_PER_ELO_GAP = 400.0
#: Rating points per unit of log-odds.
SCALE = POINTS_PER_ELO_GAP / math.log(BASE)
INIT_RATING = 1000.0


def to_display(strength: float) -> float:
    r"""A centred log-odds strength on the display scale, :math:`1000 + \mathrm{SCALE}\,r`."""
    return INIT_RATING + SCALE * strength


def to_log_odds(points: float) -> float:
    """A difference of display points (or a standard error) back in log-odds."""
    return points / SCALE
