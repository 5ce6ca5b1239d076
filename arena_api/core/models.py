"""Domain values shared by the service, the ports and their adapters."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from decimal import Decimal
from typing import Literal

from arena_api.core.errors import ModelNotMatched
from arena_api.core.lifecycle import ModelStatus
from arena_api.core.media import ChatImage

__all__ = [
    "ChatMessage",
    "ModelEntry",
    "ModelSource",
    "ModelWithStatus",
    "Prices",
    "Role",
    "RosterItem",
    "Slot",
    "SLOTS",
]

Slot = Literal["A", "B"]
SLOTS: tuple[Slot, Slot] = ("A", "B")
Role = Literal["system", "user", "assistant"]


@dataclass(frozen=True)
class Prices:
    """What a model costs, in US dollars per million tokens."""

    input_per_mtok: Decimal
    output_per_mtok: Decimal


@dataclass(frozen=True)
class ModelEntry:
    """One model of the roster (``prices`` unset when the roster gives none)."""

    id: uuid.UUID
    display_name: str
    provider: str
    provider_model_id: str
    prices: Prices | None = None
    #: The model reads images (the roster's ``vision: true``): only such models answer a round
    #: with images.
    vision: bool = False


@dataclass(frozen=True)
class ModelWithStatus:
    """A model and its place in the roster (``arena_api.core.lifecycle``)."""

    model: ModelEntry
    status: ModelStatus

    def not_matched(self, field: str = "models") -> ModelNotMatched:
        """The error for a request that named this (paused or archived) model."""
        return ModelNotMatched(self.model.display_name, self.model.id, self.status, field=field)


#: Where a model came from: the roster file, the admin console, an import.
ModelSource = Literal["file", "console", "import"]


@dataclass(frozen=True)
class RosterItem:
    """A model as the admin console lists it: its status and where it came from."""

    model: ModelEntry
    status: ModelStatus
    source: ModelSource


@dataclass(frozen=True)
class ChatMessage:
    """One message of the context sent to a provider."""

    role: Role
    content: str
    #: The images of a user message (``core.media``), in the order the person attached them.
    images: tuple[ChatImage, ...] = ()
