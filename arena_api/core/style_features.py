"""The style features the style-controlled fit adjusts for, their order and their units.

Each feature but ``position`` is a per-vote delta, slot A minus slot B, of one measure of the two
answers. The fit stores its coefficients standardised (log-odds per standard deviation of the
delta; ``position``, the constant 1, in log-odds outright); ``STYLE_UNITS`` restates them per
readable amount of the raw delta. ``pair_style_stats`` keeps each delta's sum and sum of squares
under ``<column>_sum`` / ``<column>_squares`` (``SPREAD_COLUMNS``).

====================  ==============================  ======================  ====================
feature               delta of                        column stem             readable unit
====================  ==============================  ======================  ====================
``position``          (the constant 1)                                        absolute
``verbosity``         output tokens                   ``verbosity``           100 output tokens
``formatting``        Markdown density (0..1)         ``formatting``          0.1 markdown density
``latency_ttft``      time to first token (ms)        ``ttft``                100 ms of TTFT
``latency_duration``  stream duration (ms)            ``duration``            second of streaming
====================  ==============================  ======================  ====================
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

__all__ = [
    "ABSOLUTE_STYLE_FEATURES",
    "POSITION",
    "SPREAD_COLUMNS",
    "STYLE_FEATURES",
    "STYLE_SUM_KINDS",
    "STYLE_UNITS",
    "StyleUnit",
    "spread_columns",
]

POSITION = "position"
#: The covariates, in the order they are fitted and stored.
STYLE_FEATURES: tuple[str, ...] = (
    POSITION,
    "verbosity",
    "formatting",
    "latency_ttft",
    "latency_duration",
)
#: Covariates that are a constant rather than a per-vote delta: their coefficient is absolute.
ABSOLUTE_STYLE_FEATURES: frozenset[str] = frozenset({POSITION})


@dataclass(frozen=True)
class StyleUnit:
    """A readable amount of a raw delta: ``amount`` of it, called ``label``."""

    amount: float
    label: str


#: A readable amount of each continuous feature's raw delta (tokens, Markdown density 0..1,
#: milliseconds).
STYLE_UNITS: Mapping[str, StyleUnit] = {
    "verbosity": StyleUnit(100.0, "100 output tokens"),
    "formatting": StyleUnit(0.1, "0.1 markdown density"),
    "latency_ttft": StyleUnit(100.0, "100 ms of TTFT"),
    "latency_duration": StyleUnit(1000.0, "second of streaming"),
}
#: The stem of each continuous feature's summed deltas in ``pair_style_stats``.
SPREAD_COLUMNS: Mapping[str, str] = {
    "verbosity": "verbosity",
    "formatting": "formatting",
    "latency_ttft": "ttft",
    "latency_duration": "duration",
}
STYLE_SUM_KINDS = ("sum", "squares")


def spread_columns() -> tuple[str, ...]:
    """``pair_style_stats``'s sum columns, feature by feature: ``verbosity_sum``, ..."""
    return tuple(f"{stem}_{kind}" for stem in SPREAD_COLUMNS.values() for kind in STYLE_SUM_KINDS)
