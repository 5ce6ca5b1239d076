from __future__ import annotations

import math

import pytest

from arena_api.core.scale import INIT_RATING, SCALE, to_display, to_log_odds


def test_four_hundred_points_multiply_the_odds_by_ten() -> None:
    gap = to_display(math.log(10)) - to_display(0.0)

    assert gap == pytest.approx(400.0)


def test_an_even_strength_is_shown_at_one_thousand() -> None:
    assert to_display(0.0) == INIT_RATING == 1000.0


def test_points_read_back_as_the_log_odds_they_were_written_from() -> None:
    assert to_log_odds(to_display(0.7) - INIT_RATING) == pytest.approx(0.7)
    assert SCALE == pytest.approx(173.7178, abs=1e-4)
