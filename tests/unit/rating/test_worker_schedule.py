"""Refit cadence: refit 1 is full, then every FULL_REFIT_EVERY-th; 0 never forces one."""

from __future__ import annotations

import pytest

from arena_rating import RefitMode, refit_mode


def _modes(count: int, every: int) -> list[str]:
    return [refit_mode(k, every, has_warm_state=k > 1).value[0] for k in range(1, count + 1)]


def test_full_refits_land_on_1_13_25_at_the_default_cadence() -> None:
    modes = _modes(26, 12)

    assert [k + 1 for k, mode in enumerate(modes) if mode == "f"] == [1, 13, 25]


def test_zero_never_forces_a_full_refit_after_the_first() -> None:
    assert _modes(5, 0) == ["f", "i", "i", "i", "i"]


@pytest.mark.parametrize("refit", [2, 7, 13])
def test_without_warm_state_every_refit_is_full(refit: int) -> None:
    assert refit_mode(refit, 12, has_warm_state=False) is RefitMode.FULL
