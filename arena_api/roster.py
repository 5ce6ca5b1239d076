"""The model roster file (``models.yaml``), parsed and validated before it reaches the database."""

from __future__ import annotations

import warnings
from decimal import Decimal
from pathlib import Path
from typing import Any

import yaml
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from arena_api.core.judging import PLACEHOLDERS
from arena_api.core.lifecycle import ACTIVE, PAUSED, ModelStatus
from arena_api.settings import ROSTER_PROVIDERS, Provider, Settings

__all__ = [
    "PROVIDERS",
    "Price",
    "Roster",
    "RosterJudge",
    "RosterError",
    "RosterModel",
    "load_roster",
    "roster_of",
]

PROVIDERS: tuple[str, ...] = ROSTER_PROVIDERS


class RosterError(ValueError):
    """The roster file is missing, not YAML, or not a valid roster."""


class Price(BaseModel):
    """US dollars per million tokens, as vendors list them (``{input: 0.15, output: 0.60}``)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    input: Decimal = Field(ge=0, le=100_000, decimal_places=6)
    output: Decimal = Field(ge=0, le=100_000, decimal_places=6)


class RosterModel(BaseModel):
    """One model of the file. ``status``: ``active`` (the default) is matched; ``paused`` and
    ``archived`` keep their history on the board and are never matched.

    ``enabled`` is the deprecated spelling: ``enabled: false`` reads as ``status: paused``.
    Given beside ``status``, it must say the same thing (``enabled`` is ``status == active``).
    """

    model_config = ConfigDict(extra="forbid", frozen=True)

    display_name: str = Field(min_length=1, max_length=200)
    provider: Provider
    provider_model_id: str = Field(min_length=1, max_length=400)
    status: ModelStatus = ACTIVE
    price: Price | None = None
    #: The model reads images: only such models answer a round with images.
    vision: bool = False

    @model_validator(mode="before")
    @classmethod
    def _enabled_alias(cls, data: Any) -> Any:
        if not isinstance(data, dict) or "enabled" not in data:
            return data
        data = dict(data)
        enabled = data.pop("enabled")
        if not isinstance(enabled, bool):
            raise ValueError("enabled must be true or false (better: status)")
        status = data.setdefault("status", ACTIVE if enabled else PAUSED)
        if (status == ACTIVE) != enabled:
            raise ValueError(
                f"enabled: {str(enabled).lower()} contradicts status: {status} "
                "(enabled is deprecated: give status alone)"
            )
        return data


class RosterJudge(BaseModel):
    """The judge model (``judge:``): any registered provider, its own prices, and optionally
    its own prompt (which must keep every placeholder: ``{conversation}``, ``{prompt}``,
    ``{answer_a}``, ``{answer_b}``; literal braces doubled)."""

    model_config = ConfigDict(extra="forbid", frozen=True)

    display_name: str = Field(min_length=1, max_length=200)
    provider: Provider
    provider_model_id: str = Field(min_length=1, max_length=400)
    price: Price | None = None
    #: The judge reads images: it is shown a round's images (else it is told it cannot see them).
    vision: bool = False
    #: Judge twice, the answers' order swapped; a disagreement becomes a tie.
    swap: bool = False
    prompt: str | None = Field(default=None, min_length=1, max_length=20_000)

    @model_validator(mode="after")
    def _placeholders(self) -> RosterJudge:
        if self.prompt is not None:
            missing = [p for p in PLACEHOLDERS if p not in self.prompt]
            if missing:
                raise ValueError(f"the judge prompt lacks {', '.join(missing)}")
        return self


class Roster(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)

    models: tuple[RosterModel, ...] = Field(min_length=1)
    judge: RosterJudge | None = None

    @model_validator(mode="after")
    def _unique(self) -> Roster:
        keys = [(m.provider, m.provider_model_id) for m in self.models]
        if len(set(keys)) != len(keys):
            raise ValueError("a (provider, provider_model_id) pair appears twice")
        active_names = [m.display_name for m in self.models if m.status == ACTIVE]
        if len(set(active_names)) != len(active_names):
            raise ValueError("two active models share a display_name")
        return self


def load_roster(path: Path) -> Roster:
    """Read and validate a roster file.

    Raises:
        RosterError: with one line saying which file and what is wrong.
    """
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except OSError as exc:
        raise RosterError(f"cannot read the model roster {path}: {exc.strerror}") from None
    except yaml.YAMLError as exc:
        raise RosterError(f"the model roster {path} is not valid YAML: {exc}") from None
    try:
        roster = Roster.model_validate(data)
    except ValidationError as exc:
        first = exc.errors()[0]
        where = ".".join(str(p) for p in first["loc"]) or "(top level)"
        raise RosterError(
            f"the model roster {path} is invalid at {where}: {first['msg']}"
        ) from None
    deprecated = [
        m.display_name
        for m, raw in zip(roster.models, data["models"], strict=True)
        if "enabled" in raw
    ]
    if deprecated:
        # FutureWarning, not DeprecationWarning: the roster is the operator's file, and Python
        # shows FutureWarning to the people running an application (DeprecationWarning only to
        # the developers of the code that calls a deprecated API).
        warnings.warn(
            f"the model roster {path}: enabled is deprecated, write status: active | paused | "
            f"archived instead (used by {', '.join(deprecated)})",
            FutureWarning,
            stacklevel=2,
        )
    return roster


def roster_of(settings: Settings) -> Roster:
    """The roster the settings name: ``ARENA_MODELS`` when set, else ``ARENA_MODELS_FILE``.

    Raises:
        RosterError: the file cannot be read or is not a valid roster, or the models of
            ``ARENA_MODELS`` do not make one (two share a display name, say).
    """
    if not settings.models:
        return load_roster(settings.models_file)
    try:
        return Roster(
            models=tuple(
                RosterModel(
                    display_name=m.display_name,
                    provider=m.provider,
                    provider_model_id=m.provider_model_id,
                )
                for m in settings.models
            )
        )
    except ValidationError as exc:
        message = exc.errors()[0]["msg"].removeprefix("Value error, ")
        raise RosterError(
            f"ARENA_MODELS does not make a roster: {message} (give each model a name of its own "
            "with =Display Name)"
        ) from None
