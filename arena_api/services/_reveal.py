"""What a vote reveals: both slots' model identities."""

from __future__ import annotations

from arena_api.core.models import ModelEntry
from arena_api.core.records import MatchupRecord, TurnRecord
from arena_api.core.views import ModelIdentity, RevealedModels

__all__ = ["reveal"]


def _identity(model: ModelEntry) -> ModelIdentity:
    return ModelIdentity(id=str(model.id), display_name=model.display_name)


def reveal(record: MatchupRecord | TurnRecord) -> RevealedModels:
    return RevealedModels(A=_identity(record.slot_a), B=_identity(record.slot_b))
