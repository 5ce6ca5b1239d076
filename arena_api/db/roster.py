"""The roster as the admin console changes it: every model with its status and source, a model
added, one edited; each change and its audit row in one transaction (``services.roster``)."""

from __future__ import annotations

import uuid
from decimal import Decimal
from typing import Any

import asyncpg

from arena_api.core.lifecycle import ModelStatus
from arena_api.core.models import ModelEntry, Prices, RosterItem
from arena_api.core.users import Actor, AuditEntry
from arena_api.db.outages import raises_unavailable
from arena_api.db.users import write_audit

__all__ = ["PostgresRoster"]

_COLUMNS = """
SELECT id, display_name, provider, provider_model_id, input_price_per_mtok,
       output_price_per_mtok, status, source, vision
  FROM models
"""
_ADD = """
INSERT INTO models (id, display_name, provider, provider_model_id, input_price_per_mtok,
                    output_price_per_mtok, status, source, vision)
VALUES ($1, $2, $3, $4, $5, $6, $7, 'console', $8)
ON CONFLICT (provider, provider_model_id) DO NOTHING
RETURNING id
"""
_EDIT = """
UPDATE models SET display_name = $2, input_price_per_mtok = $3, output_price_per_mtok = $4,
                  status = $5, vision = $6
 WHERE id = $1
"""


def _item(row: asyncpg.Record) -> RosterItem:
    prices = None
    if row["input_price_per_mtok"] is not None and row["output_price_per_mtok"] is not None:
        prices = Prices(row["input_price_per_mtok"], row["output_price_per_mtok"])
    model = ModelEntry(
        row["id"],
        row["display_name"],
        row["provider"],
        row["provider_model_id"],
        prices,
        vision=row["vision"],
    )
    return RosterItem(model, row["status"], row["source"])


def _state(item: RosterItem) -> dict[str, Any]:
    prices = item.model.prices
    return {
        "displayName": item.model.display_name,
        "status": item.status,
        "vision": item.model.vision,
        "prices": None
        if prices is None
        else [str(prices.input_per_mtok), str(prices.output_per_mtok)],
    }


@raises_unavailable
class PostgresRoster:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def items(self) -> list[RosterItem]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(
                _COLUMNS + " ORDER BY status = 'active' DESC, status = 'paused' DESC, "
                "lower(display_name), id"
            )
        return [_item(r) for r in rows]

    async def item(self, model_id: uuid.UUID) -> RosterItem | None:
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_COLUMNS + " WHERE id = $1", model_id)
        return None if row is None else _item(row)

    async def add(
        self,
        display_name: str,
        provider: str,
        provider_model_id: str,
        prices: tuple[Decimal, Decimal] | None,
        status: ModelStatus,
        actor: Actor,
        vision: bool = False,
    ) -> RosterItem | None:
        """The model added; ``None`` when one with this provider and model id exists."""
        async with self._pool.acquire() as conn, conn.transaction():
            model_id = await conn.fetchval(
                _ADD,
                uuid.uuid4(),
                display_name,
                provider,
                provider_model_id,
                *(prices or (None, None)),
                status,
                vision,
            )
            if model_id is None:
                return None
            item = _item(await conn.fetchrow(_COLUMNS + " WHERE id = $1", model_id))
            await write_audit(
                conn,
                AuditEntry(
                    actor.id,
                    actor.label,
                    "model_add",
                    target=f"model:{model_id}",
                    after={"provider": f"{provider}:{provider_model_id}", **_state(item)},
                ),
            )
        return item

    async def edit(
        self,
        model_id: uuid.UUID,
        display_name: str,
        prices: tuple[Decimal, Decimal] | None,
        status: ModelStatus,
        actor: Actor,
        vision: bool | None = None,
    ) -> tuple[RosterItem, RosterItem] | None:
        """The model before and after (``vision`` ``None``: as it was); ``None`` for no such
        model."""
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(_COLUMNS + " WHERE id = $1 FOR UPDATE", model_id)
            if row is None:
                return None
            before = _item(row)
            await conn.execute(
                _EDIT,
                model_id,
                display_name,
                *(prices or (None, None)),
                status,
                before.model.vision if vision is None else vision,
            )
            after = _item(await conn.fetchrow(_COLUMNS + " WHERE id = $1", model_id))
            old, new = _state(before), _state(after)
            changed = [k for k in old if old[k] != new[k]]
            if changed:
                await write_audit(
                    conn,
                    AuditEntry(
                        actor.id,
                        actor.label,
                        "model_edit",
                        target=f"model:{model_id}",
                        before={k: old[k] for k in changed},
                        after={k: new[k] for k in changed},
                    ),
                )
        return before, after
