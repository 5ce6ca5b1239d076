"""The read and reveal shapes the service returns: one definition for the API and the UI.

Serialised with camelCase keys (``.wire()``), matching the seed system's API.
"""

from __future__ import annotations

from datetime import datetime

from pydantic import BaseModel, ConfigDict
from pydantic.alias_generators import to_camel

from arena_api.core.models import Slot

__all__ = [
    "AnswerView",
    "Components",
    "ComponentGroup",
    "ConfidenceInterval",
    "ConversationView",
    "LeaderboardEntry",
    "LeaderboardView",
    "MatchupView",
    "ModelIdentity",
    "RevealedModels",
    "StyleControl",
    "StyleEffect",
    "TurnView",
    "VoteReveal",
]


class _View(BaseModel):
    model_config = ConfigDict(frozen=True, alias_generator=to_camel, populate_by_name=True)

    def wire(self) -> dict[str, object]:
        return self.model_dump(by_alias=True, mode="json")


class ModelIdentity(_View):
    id: str
    display_name: str


class RevealedModels(_View):
    A: ModelIdentity
    B: ModelIdentity

    model_config = ConfigDict(frozen=True, alias_generator=None)


class VoteReveal(_View):
    accepted: bool
    models: RevealedModels
    continuable: bool
    conversation_id: str | None


class MatchupView(_View):
    matchup_id: str
    conversation_id: str | None
    turn_index: int | None
    mode: str
    votable: bool
    continuable: bool
    vote: str | None
    models: RevealedModels | None


class AnswerView(_View):
    slot: Slot
    content: str
    error: str | None


class TurnView(_View):
    turn_index: int
    matchup_id: str
    prompt: str
    votable: bool
    vote: str | None
    answers: list[AnswerView]
    models: RevealedModels | None


class ConversationView(_View):
    conversation_id: str
    continuable: bool
    next_turn_index: int
    turns: list[TurnView]


class ConfidenceInterval(_View):
    lower: float
    upper: float


class LeaderboardEntry(_View):
    id: str
    display_name: str
    wins: int
    losses: int
    ties: int
    skips: int
    total_votes: int
    win_rate: float
    rating: float | None
    rating_std_error: float | None
    confidence_interval: ConfidenceInterval | None
    component_id: int | None
    style_controlled_rating: float | None
    style_controlled_std_error: float | None
    style_controlled_confidence_interval: ConfidenceInterval | None


class ComponentGroup(_View):
    component_id: int
    models: int


class Components(_View):
    count: int | None
    groups: list[ComponentGroup]


class StyleEffect(_View):
    feature: str
    log_odds: float
    points: float
    basis: str
    per_unit: dict[str, object] | None


class StyleControl(_View):
    effects: list[StyleEffect]
    votes_observed: int
    computed_at: datetime | None


class LeaderboardView(_View):
    components: Components
    style_control: StyleControl
    models: list[LeaderboardEntry]
