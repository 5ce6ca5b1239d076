from __future__ import annotations

from arena_api.core.style_features import (
    ABSOLUTE_STYLE_FEATURES,
    SPREAD_COLUMNS,
    STYLE_FEATURES,
    STYLE_UNITS,
    spread_columns,
)


def test_the_features_are_fitted_in_one_order_position_first() -> None:
    assert STYLE_FEATURES == (
        "position",
        "verbosity",
        "formatting",
        "latency_ttft",
        "latency_duration",
    )


def test_every_feature_but_the_absolute_ones_has_a_unit_and_a_spread() -> None:
    deltas = [f for f in STYLE_FEATURES if f not in ABSOLUTE_STYLE_FEATURES]

    assert list(STYLE_UNITS) == deltas == list(SPREAD_COLUMNS)


def test_the_summary_keeps_a_sum_and_a_sum_of_squares_per_feature() -> None:
    assert spread_columns() == (
        "verbosity_sum",
        "verbosity_squares",
        "formatting_sum",
        "formatting_squares",
        "ttft_sum",
        "ttft_squares",
        "duration_sum",
        "duration_squares",
    )
