"""Domain values shared by the service, the ports and their adapters."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

__all__ = ["ModelEntry"]


@dataclass(frozen=True)
class ModelEntry:
    """One enabled model of the roster."""

    id: uuid.UUID
    display_name: str
    provider: str
    provider_model_id: str
