"""ArenaService: the one application service that both the HTTP routes and the Reflex UI call."""

from __future__ import annotations

from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.models import ModelEntry
from arena_api.db import repository

__all__ = ["ArenaService"]


class ArenaService:
    def __init__(self, engine: AsyncEngine) -> None:
        self._engine = engine

    async def roster(self) -> list[ModelEntry]:
        """The enabled models; the roster is public, only a matchup's draw is blind."""
        return await repository.list_enabled_models(self._engine)
