"""The environment variables the rating process reads, parsed like ``arena_api.settings`` does.

``arena_rating`` may not import ``arena_api.settings``, so the rating variables are declared
again here with the same names, aliases, defaults and ranges; a unit test keeps the two
declarations equal. A malformed value raises ``RatingSettingsError`` with the same one-line
message ``arena`` prints.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena_rating._errors import RatingError

__all__ = ["RATING_VARIABLES", "RatingSettings", "RatingSettingsError", "load_rating_settings"]


class RatingSettingsError(RatingError, ValueError):
    """A variable holds a value outside what it allows."""

    def __init__(self, name: str, value: str, allowed: str) -> None:
        self.name, self.value, self.allowed = name, value, allowed
        super().__init__(f"invalid setting {name}={value!r}: {allowed}")


class _Invalid(ValueError):
    pass


Parser = Callable[[str], Any]


@dataclass(frozen=True)
class Variable:
    """One environment variable: name, default as written in the environment, parser."""

    name: str
    default: str | None
    parse: Parser
    allowed: str
    field: str
    aliases: tuple[str, ...] = ()


def _integer(lo: int, hi: int) -> tuple[Parser, str]:
    def parse(raw: str) -> int:
        try:
            value = int(raw.strip())
        except ValueError as exc:
            raise _Invalid from exc
        if not lo <= value <= hi:
            raise _Invalid
        return value

    return parse, f"must be an integer in [{lo}, {hi}]"


def _number(lo: float, hi: float, *, open_low: bool = False) -> tuple[Parser, str]:
    def parse(raw: str) -> float:
        try:
            value = float(raw.strip())
        except ValueError as exc:
            raise _Invalid from exc
        if value != value or not (lo < value if open_low else lo <= value) or value > hi:
            raise _Invalid
        return value

    bracket = "(" if open_low else "["
    return parse, f"must be a number in {bracket}{lo:g}, {hi:g}]"


def _choice(*values: str) -> tuple[Parser, str]:
    def parse(raw: str) -> str:
        value = raw.strip().lower()
        if value not in values:
            raise _Invalid
        return value

    return parse, "must be one of " + " | ".join(values)


def _url(*schemes: str) -> tuple[Parser, str]:
    def parse(raw: str) -> str | None:
        value = raw.strip()
        if not value:
            return None
        scheme, sep, rest = value.partition("://")
        if not sep or scheme.lower() not in schemes or not rest:
            raise _Invalid
        return value.rstrip("/")

    return parse, "must be a URL starting with " + " or ".join(f"{s}://" for s in schemes)


def _variable(
    name: str, default: str | None, kind: tuple[Parser, str], field: str, *aliases: str
) -> Variable:
    parse, allowed = kind
    return Variable(name, default, parse, allowed, field, aliases)


RATING_VARIABLES: tuple[Variable, ...] = (
    _variable(
        "DATABASE_URL",
        None,
        _url("postgres", "postgresql", "postgresql+asyncpg"),
        "database_url",
    ),
    _variable(
        "RATING_REFIT_INTERVAL_S",
        "300",
        _number(1, 86_400),
        "refit_interval_s",
        "REFIT_INTERVAL_SECONDS",
    ),
    _variable("FULL_REFIT_EVERY", "12", _integer(0, 100_000), "full_refit_every"),
    _variable("RATING_RIDGE", "0.01", _number(0, 100, open_low=True), "rating_ridge"),
    _variable("STYLE_RIDGE", "0.05", _number(0, 100, open_low=True), "style_ridge"),
    _variable("ANOMALY_ALPHA", "0.05", _number(0, 0.5, open_low=True), "anomaly_alpha"),
    _variable("ANOMALY_MIN_GAP_S", "1.5", _number(0, 3600), "anomaly_min_gap_s"),
    _variable("LOG_LEVEL", "INFO", _choice("debug", "info", "warning", "error"), "log_level"),
    _variable("LOG_FORMAT", "text", _choice("text", "json"), "log_format"),
)


@dataclass(frozen=True)
class RatingSettings:
    """The parsed rating variables. Build with ``load_rating_settings``; the defaults here are
    the declared ones, for tests and library callers."""

    database_url: str | None = None
    refit_interval_s: float = 300.0
    full_refit_every: int = 12
    rating_ridge: float = 0.01
    style_ridge: float = 0.05
    anomaly_alpha: float = 0.05
    anomaly_min_gap_s: float = 1.5
    log_level: str = "info"
    log_format: str = "text"


def load_rating_settings(environ: Mapping[str, str] | None = None) -> RatingSettings:
    """Parse the environment (``os.environ`` by default) against ``RATING_VARIABLES``.

    Raises
    ------
    RatingSettingsError
        The first variable whose value is malformed or out of range.
    """
    env = os.environ if environ is None else environ
    values: dict[str, Any] = {}
    for variable in RATING_VARIABLES:
        name = next((n for n in (variable.name, *variable.aliases) if n in env), variable.name)
        raw = env.get(name, variable.default)
        if raw is None:
            values[variable.field] = None
            continue
        try:
            values[variable.field] = variable.parse(raw)
        except _Invalid:
            raise RatingSettingsError(name, raw, variable.allowed) from None
    return RatingSettings(**values)
