"""The rating process reads the same variables, defaults and ranges as arena_api.settings."""

from __future__ import annotations

import pytest

from arena_api.settings import SETTINGS
from arena_rating import RatingSettings, RatingSettingsError, load_rating_settings
from arena_rating._settings import RATING_VARIABLES

DECLARED = {s.name: s for s in SETTINGS}


@pytest.mark.parametrize("variable", RATING_VARIABLES, ids=lambda v: v.name)
def test_each_variable_is_declared_identically_in_arena_api(variable: object) -> None:
    ours = variable
    theirs = DECLARED[ours.name]  # type: ignore[attr-defined]

    assert (ours.default, ours.allowed, ours.aliases) == (  # type: ignore[attr-defined]
        theirs.default,
        theirs.allowed,
        theirs.aliases,
    )


def test_the_defaults_are_the_declared_ones() -> None:
    settings = load_rating_settings({})

    assert settings == RatingSettings()
    assert (settings.refit_interval_s, settings.full_refit_every) == (300.0, 12)
    assert (settings.rating_ridge, settings.style_ridge) == (0.01, 0.05)
    assert (settings.anomaly_alpha, settings.anomaly_min_gap_s) == (0.05, 1.5)


def test_the_alias_of_the_refit_interval_is_honoured() -> None:
    settings = load_rating_settings({"REFIT_INTERVAL_SECONDS": "60"})

    assert settings.refit_interval_s == 60.0


@pytest.mark.parametrize(
    ("name", "value"),
    [
        pytest.param("RATING_RIDGE", "0", id="ridge-zero"),
        pytest.param("FULL_REFIT_EVERY", "-1", id="full-refit-negative"),
        pytest.param("ANOMALY_ALPHA", "0.6", id="alpha-too-high"),
        pytest.param("RATING_REFIT_INTERVAL_S", "soon", id="interval-not-a-number"),
        pytest.param("DATABASE_URL", "mysql://x/y", id="database-url-wrong-scheme"),
        pytest.param("LOG_FORMAT", "xml", id="log-format-unknown"),
    ],
)
def test_a_bad_value_is_one_line_naming_the_variable(name: str, value: str) -> None:
    with pytest.raises(RatingSettingsError) as raised:
        load_rating_settings({name: value})

    message = str(raised.value)
    assert message.startswith(f"invalid setting {name}={value!r}: ")
    assert "\n" not in message
