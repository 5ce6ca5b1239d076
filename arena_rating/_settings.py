"""The environment variables the rating process reads.

They are declared once, with every other variable, in ``arena_api.settings`` (names, aliases,
defaults, ranges); this module picks the rating process's own and parses them with the same
rules. A malformed value raises ``RatingSettingsError`` with the same one-line message ``arena``
prints.
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from arena_api.settings import SETTINGS, Setting, SettingsError, read_setting
from arena_rating._errors import RatingError

__all__ = ["RATING_VARIABLES", "RatingSettings", "RatingSettingsError", "load_rating_settings"]


class RatingSettingsError(RatingError, ValueError):
    """A variable holds a value outside what it allows."""

    def __init__(self, name: str, value: str, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"invalid setting {name}={value!r}: {allowed}")


# variable name -> field of RatingSettings
_FIELDS: dict[str, str] = {
    "DATABASE_URL": "database_url",
    "RATING_MIN_INTERVAL_S": "min_interval_s",
    "RATING_REFIT_INTERVAL_S": "refit_interval_s",
    "FULL_REFIT_EVERY": "full_refit_every",
    "RATING_RIDGE": "rating_ridge",
    "STYLE_RIDGE": "style_ridge",
    "ANOMALY_ALPHA": "anomaly_alpha",
    "ANOMALY_MIN_GAP_S": "anomaly_min_gap_s",
    "RATING_DUPLICATE_CAP": "duplicate_cap",
    "RATING_DUPLICATE_MIN_VOTES": "duplicate_min_votes",
    "RATING_CATEGORY_MIN_VOTES": "category_min_votes",
    "LOG_LEVEL": "log_level",
    "LOG_FORMAT": "log_format",
}
RATING_VARIABLES: tuple[Setting, ...] = tuple(s for s in SETTINGS if s.name in _FIELDS)


@dataclass(frozen=True)
class RatingSettings:
    """The parsed rating variables. Build with ``load_rating_settings``; the defaults here are
    the declared ones, for tests and library callers."""

    database_url: str | None = None
    min_interval_s: float = 10.0
    refit_interval_s: float = 300.0
    full_refit_every: int = 12
    rating_ridge: float = 0.01
    style_ridge: float = 0.05
    anomaly_alpha: float = 0.05
    anomaly_min_gap_s: float = 1.5
    duplicate_cap: float = 0.001
    duplicate_min_votes: int = 20
    category_min_votes: int = 200
    log_level: str = "info"
    log_format: str = "text"


def load_rating_settings(environ: Mapping[str, str] | None = None) -> RatingSettings:
    """Parse the environment (``os.environ`` by default) for the rating variables.

    Raises
    ------
    RatingSettingsError
        The first variable whose value is malformed or out of range.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for variable in RATING_VARIABLES:
        try:
            values[_FIELDS[variable.name]] = read_setting(variable, env)
        except SettingsError as exc:
            raise RatingSettingsError(exc.name, exc.value, exc.allowed) from None
    return RatingSettings(**values)
