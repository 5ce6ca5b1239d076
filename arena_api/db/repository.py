"""PostgreSQL implementations of the ports. Rows and ``select()`` never leave this package."""

from __future__ import annotations

import uuid
from dataclasses import dataclass

from sqlalchemy import select, update
from sqlalchemy.dialects.postgresql import insert
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.core.models import ModelEntry
from arena_api.db.tables import models
from arena_api.roster import Roster

__all__ = ["SeedResult", "list_enabled_models", "seed_roster"]


@dataclass(frozen=True)
class SeedResult:
    inserted: int
    updated: int
    disabled: int


async def seed_roster(engine: AsyncEngine, roster: Roster) -> SeedResult:
    """Make the ``models`` table match the roster, in one transaction.

    A model is identified by (provider, provider_model_id): its UUID is minted on first insert and
    kept forever; later seeds update its display name and enabled flag. Models absent from the
    roster are disabled, never deleted, so their history stays intact.
    """
    async with engine.begin() as conn:
        existing = {
            (row.provider, row.provider_model_id)
            for row in await conn.execute(select(models.c.provider, models.c.provider_model_id))
        }
        rows = [
            {
                "id": uuid.uuid4(),
                "display_name": m.display_name,
                "provider": m.provider,
                "provider_model_id": m.provider_model_id,
                "enabled": m.enabled,
            }
            for m in roster.models
        ]
        stmt = insert(models).values(rows)
        await conn.execute(
            stmt.on_conflict_do_update(
                index_elements=[models.c.provider, models.c.provider_model_id],
                set_={"display_name": stmt.excluded.display_name, "enabled": stmt.excluded.enabled},
            )
        )
        listed = {(m.provider, m.provider_model_id) for m in roster.models}
        stale = existing - listed
        disabled = 0
        for provider, provider_model_id in stale:
            result = await conn.execute(
                update(models)
                .where(models.c.provider == provider)
                .where(models.c.provider_model_id == provider_model_id)
                .where(models.c.enabled)
                .values(enabled=False)
            )
            disabled += result.rowcount
    inserted = len(listed - existing)
    return SeedResult(inserted=inserted, updated=len(listed) - inserted, disabled=disabled)


async def list_enabled_models(engine: AsyncEngine) -> list[ModelEntry]:
    """The enabled roster, ordered by display name."""
    query = (
        select(models.c.id, models.c.display_name, models.c.provider, models.c.provider_model_id)
        .where(models.c.enabled)
        .order_by(models.c.display_name)
    )
    async with engine.connect() as conn:
        rows = (await conn.execute(query)).all()
    return [ModelEntry(r.id, r.display_name, r.provider, r.provider_model_id) for r in rows]
