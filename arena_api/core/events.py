"""The events of a round: internal ones (from ArenaCore, with metrics) and public ones (the wire).

Internal events carry what persistence needs (content, latency, token counts). Public events
carry nothing that could identify a model: ``slot_done`` is stripped to its slot, and
``matchup_started`` names slots, never models. Every public event is a validated pydantic model,
so nothing leaves the server without passing the public schema. Wire keys are camelCase.
"""

from __future__ import annotations

from decimal import Decimal
from typing import Annotated, Literal

from pydantic import BaseModel, ConfigDict, Field
from pydantic.alias_generators import to_camel

from arena_api.core.models import Slot

__all__ = [
    "InternalEvent",
    "InternalMatchupDone",
    "InternalSlotDone",
    "InternalSlotError",
    "InternalSteered",
    "InternalToken",
    "MatchupDone",
    "MatchupStarted",
    "PublicEvent",
    "NamedModel",
    "RoundMode",
    "RunError",
    "SLOT_ERROR_MARKER",
    "SlotDone",
    "SlotError",
    "SlotResult",
    "Steered",
    "Token",
    "TokenCountSource",
]

RoundMode = Literal["matchup", "single", "shadow", "named"]

#: Marks a failed slot's closing text on protocols that have nothing but text for it (OpenAI
#: chunks, AG-UI messages, an Open WebUI answer), so a reader can tell it from a model's words.
SLOT_ERROR_MARKER = "[omni-arena:slot-error]"
TokenCountSource = Literal["provider", "estimated"]


# -- internal ------------------------------------------------------------------------------------


class _Internal(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class SlotResult(_Internal):
    """Everything recorded about one slot's answer."""

    content: str
    latency_ms: int = Field(ge=0)
    ttft_ms: int | None = Field(default=None, ge=0)
    stream_duration_ms: int = Field(ge=0)
    output_token_count: int = Field(ge=0)
    token_count_source: TokenCountSource
    markdown_density: float = Field(ge=0, le=1)
    model_version: str | None = None
    error: str | None = None
    #: The prompt's tokens as billed (the conversation sent), and whose count it is.
    input_token_count: int = Field(default=0, ge=0)
    input_token_source: TokenCountSource = "estimated"
    #: US dollars; ``None`` when the model has no prices in the roster.
    cost_usd: Decimal | None = None
    #: The answer names its own model, family or vendor (``core.identity``): a vote after it is
    #: not blind.
    names_itself: bool = False


class InternalToken(_Internal):
    type: Literal["token"] = "token"
    slot: Slot
    text: str


class InternalSlotError(_Internal):
    type: Literal["slot_error"] = "slot_error"
    slot: Slot
    message: str
    #: Stable and machine-readable (``core.slot_errors``), e.g. ``provider_rate_limited``.
    code: str


class InternalSlotDone(_Internal):
    type: Literal["slot_done"] = "slot_done"
    slot: Slot
    result: SlotResult


class InternalSteered(_Internal):
    type: Literal["steered"] = "steered"
    instruction: str


class InternalMatchupDone(_Internal):
    type: Literal["matchup_done"] = "matchup_done"


InternalEvent = Annotated[
    InternalToken | InternalSlotError | InternalSlotDone | InternalSteered | InternalMatchupDone,
    Field(discriminator="type"),
]


# -- public --------------------------------------------------------------------------------------


class _Public(BaseModel):
    model_config = ConfigDict(
        frozen=True, extra="forbid", alias_generator=to_camel, populate_by_name=True
    )

    def wire(self) -> dict[str, object]:
        """The JSON object sent on the wire: camelCase keys, absent optionals omitted."""
        return self.model_dump(by_alias=True, exclude_none=True)

    def wire_json(self) -> str:
        return self.model_dump_json(by_alias=True, exclude_none=True)


class NamedModel(_Public):
    """A model a named side-by-side round shows from its start."""

    id: str
    display_name: str


class MatchupStarted(_Public):
    """First event of every round. ``matchup_token``/``conversation_id``/``turn_index`` are
    omitted when the round has nothing behind them (a ``single`` round; no token on shadow).
    ``models`` names both slots' models in a ``named`` round only: every other round is blind
    until its vote."""

    type: Literal["matchup_started"] = "matchup_started"
    matchup_id: str
    matchup_token: str | None = None
    conversation_id: str | None = None
    turn_index: int | None = Field(default=None, ge=0)
    slots: tuple[Slot, ...] = Field(min_length=1, max_length=2)
    mode: RoundMode
    votable: bool
    models: dict[Slot, NamedModel] | None = None

    def header(self) -> str:
        """The ``x-arena-matchup`` header: this event as JSON, minus its ``type``."""
        return self.model_dump_json(by_alias=True, exclude_none=True, exclude={"type"})


class Token(_Public):
    type: Literal["token"] = "token"
    slot: Slot
    token: str = Field(min_length=1)


class SlotError(_Public):
    """A slot failed; the other slot goes on. ``code`` (see ``core.slot_errors``) is stable and
    machine-readable; ``message`` is blind (it names no model, provider or vendor)."""

    type: Literal["slot_error"] = "slot_error"
    slot: Slot
    message: str
    code: str | None = None


class SlotDone(_Public):
    """A slot's answer ended. ``recorded`` is false (and only then present) when it could not
    be stored."""

    type: Literal["slot_done"] = "slot_done"
    slot: Slot
    recorded: Literal[False] | None = None


class Steered(_Public):
    type: Literal["steered"] = "steered"
    instruction: str


class RunError(_Public):
    type: Literal["run_error"] = "run_error"
    code: str
    message: str


class MatchupDone(_Public):
    """The end of a round. ``recorded`` is false (and only then present) when an answer of it
    could not be stored (the database was unavailable); the stream itself was complete."""

    type: Literal["matchup_done"] = "matchup_done"
    recorded: Literal[False] | None = None


PublicEvent = Annotated[
    MatchupStarted | Token | SlotError | SlotDone | Steered | RunError | MatchupDone,
    Field(discriminator="type"),
]
