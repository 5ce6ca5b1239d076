"""Which kind of round a chat request gets: the trigger and exposure axes, and the default model.

The trigger decides *whether* the arena engages on a request, the exposure *what* an engaged
request shows:

    trigger   engaged when                  exposure   engaged plan   not engaged
    always    every request                 blind      matchup        single
    sampled   rng.random() < sample_rate    shadow     shadow         single
    manual    the client opted in

``single`` rounds run on the default model (``ARENA_DEFAULT_MODEL``), which is also the
incumbent of a shadow round.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import Sequence
from typing import Literal, get_args

from arena_api.core.errors import RoundConfigError
from arena_api.core.models import ModelEntry

__all__ = [
    "Exposure",
    "Plan",
    "Trigger",
    "is_opted_in",
    "resolve_default_model",
    "resolve_plan",
]

Plan = Literal["matchup", "shadow", "single"]
Trigger = Literal["always", "manual", "sampled"]
Exposure = Literal["blind", "shadow"]

_TRIGGERS: frozenset[str] = frozenset(get_args(Trigger))
_EXPOSURES: frozenset[str] = frozenset(get_args(Exposure))
_OPT_IN_VALUES = frozenset({"on", "1", "true"})
_ACCEPTED_FORMS = "the model UUID, provider_model_id, display_name or provider:provider_model_id"


def resolve_plan(
    *, trigger: str, exposure: str, sample_rate: float, opted_in: bool, rng: random.Random
) -> Plan:
    """The plan of one request (see the module table).

    ``rng`` is consulted only when ``trigger`` is ``sampled``.

    Raises:
        ValueError: unknown trigger or exposure, or a sample rate outside [0, 1].
    """
    if trigger not in _TRIGGERS:
        raise ValueError(f"unknown trigger {trigger!r}; expected one of {sorted(_TRIGGERS)}")
    if exposure not in _EXPOSURES:
        raise ValueError(f"unknown exposure {exposure!r}; expected one of {sorted(_EXPOSURES)}")
    if not 0.0 <= sample_rate <= 1.0:
        raise ValueError(f"sample_rate must be within [0, 1], got {sample_rate!r}")
    if trigger == "always":
        engaged = True
    elif trigger == "sampled":
        engaged = rng.random() < sample_rate
    else:
        engaged = opted_in
    if not engaged:
        return "single"
    return "matchup" if exposure == "blind" else "shadow"


def is_opted_in(body_flag: bool | None, header_value: str | None) -> bool:
    """Whether the client asked for the arena: ``"arena": true`` in the body or ``x-arena: on``.

    The header is trimmed and compared case-insensitively; ``1`` and ``true`` count as ``on``.
    """
    if body_flag is True:
        return True
    return header_value is not None and header_value.strip().lower() in _OPT_IN_VALUES


def resolve_default_model(value: str, models: Sequence[ModelEntry]) -> ModelEntry:
    """The one model of ``models`` that ``value`` names.

    ``value`` (surrounding whitespace ignored) may be the model UUID, its ``provider_model_id``,
    its ``display_name`` or ``provider:provider_model_id``. A model matched by several forms
    counts once.

    Raises:
        RoundConfigError: (500, ``default_model_missing``) no model or more than one model
            matches; the message lists the accepted forms and the enabled roster.
    """
    wanted = value.strip()
    wanted_id = _parse_uuid(wanted)
    matches: dict[uuid.UUID, ModelEntry] = {}
    for model in models:
        if (
            model.id == wanted_id
            or wanted in (model.provider_model_id, model.display_name)
            or wanted == f"{model.provider}:{model.provider_model_id}"
        ):
            matches.setdefault(model.id, model)
    if len(matches) == 1:
        return next(iter(matches.values()))
    problem = "matches no enabled model" if not matches else f"matches {len(matches)} models"
    roster = ", ".join(
        f"{model.display_name} ({model.provider}:{model.provider_model_id})" for model in models
    )
    raise RoundConfigError(
        f"ARENA_DEFAULT_MODEL={wanted!r} {problem}; give {_ACCEPTED_FORMS}. "
        f"Enabled models: {roster or 'none'}",
        status=500,
        code="default_model_missing",
    )


def _parse_uuid(value: str) -> uuid.UUID | None:
    try:
        return uuid.UUID(value)
    except ValueError:
        return None
