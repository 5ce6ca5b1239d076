"""A model's place in the roster: ``active`` models are matched; ``paused`` ones are held back
for now; ``archived`` ones have left the roster (or are known only from imported votes). Paused
and archived models keep their history on the board, marked, and are never matched."""

from __future__ import annotations

from typing import Literal

__all__ = ["ACTIVE", "ARCHIVED", "MODEL_STATUSES", "PAUSED", "ModelStatus"]

ModelStatus = Literal["active", "paused", "archived"]
ACTIVE: ModelStatus = "active"
PAUSED: ModelStatus = "paused"
ARCHIVED: ModelStatus = "archived"
MODEL_STATUSES: tuple[ModelStatus, ...] = (ACTIVE, PAUSED, ARCHIVED)
