"""Direct row builders for schema tests: each inserts one valid row and returns its id."""

from __future__ import annotations

import uuid
from typing import Any

from sqlalchemy import insert
from sqlalchemy.ext.asyncio import AsyncConnection

from arena_api.db import tables


async def model(conn: AsyncConnection, name: str = "m") -> uuid.UUID:
    model_id = uuid.uuid4()
    await conn.execute(
        insert(tables.models).values(
            id=model_id,
            display_name=name,
            provider="mock",
            provider_model_id=f"{name}-{model_id}",
        )
    )
    return model_id


async def matchup(conn: AsyncConnection, a: uuid.UUID, b: uuid.UUID, **overrides: Any) -> uuid.UUID:
    matchup_id = uuid.uuid4()
    values: dict[str, Any] = dict(
        id=matchup_id,
        prompt="p",
        model_a_id=a,
        model_b_id=b,
        slot_a_model_id=a,
        slot_b_model_id=b,
        slot_a_provider_model_id="pa",
        slot_b_provider_model_id="pb",
        matchup_token_hash="h" * 64,
    )
    values.update(overrides)
    await conn.execute(insert(tables.matchups).values(**values))
    return matchup_id


async def response(
    conn: AsyncConnection,
    matchup_id: uuid.UUID,
    model_id: uuid.UUID,
    slot: str = "A",
    **overrides: Any,
) -> uuid.UUID:
    response_id = uuid.uuid4()
    values: dict[str, Any] = dict(
        id=response_id,
        matchup_id=matchup_id,
        slot=slot,
        model_id=model_id,
        content="c",
        latency_ms=10,
        ttft_ms=1,
        stream_duration_ms=10,
        output_token_count=3,
        token_count_source="estimated",
        markdown_density=0.1,
    )
    values.update(overrides)
    await conn.execute(insert(tables.responses).values(**values))
    return response_id


async def conversation(conn: AsyncConnection) -> uuid.UUID:
    conversation_id = uuid.uuid4()
    await conn.execute(insert(tables.conversations).values(id=conversation_id))
    return conversation_id


async def turn(
    conn: AsyncConnection,
    conversation_id: uuid.UUID,
    matchup_id: uuid.UUID,
    index: int,
    parent: uuid.UUID | None,
) -> uuid.UUID:
    turn_id = uuid.uuid4()
    await conn.execute(
        insert(tables.turns).values(
            id=turn_id,
            conversation_id=conversation_id,
            matchup_id=matchup_id,
            turn_index=index,
            parent_response_id=parent,
            prompt="p",
        )
    )
    return turn_id


async def preference(
    conn: AsyncConnection, matchup_id: uuid.UUID, vote: str = "left", **overrides: Any
) -> uuid.UUID:
    preference_id = uuid.uuid4()
    await conn.execute(
        insert(tables.preferences).values(
            id=preference_id, matchup_id=matchup_id, vote=vote, **overrides
        )
    )
    return preference_id
