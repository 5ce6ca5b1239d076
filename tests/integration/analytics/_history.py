"""Hand-built voting histories for the analytics tests: rounds, answers and votes, row by row."""

from __future__ import annotations

import contextlib
import uuid
from collections.abc import AsyncIterator
from datetime import datetime
from pathlib import Path
from typing import Any

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncConnection, AsyncEngine

from tests.integration import rows
from tests.integration.arena_harness import Arena, roster_of, serve_arena

WINNER_SLOT = {"left": "A", "right": "B"}


@contextlib.asynccontextmanager
async def arena_of(
    db: AsyncEngine, database_url: str, tmp_path: Path, *names: str, **env: str
) -> AsyncIterator[tuple[Arena, dict[str, uuid.UUID]]]:
    """A served arena whose roster is ``names`` (mock models) with ``env``, and their ids."""
    roster = roster_of(*((name, "mock", name.lower()) for name in names))
    async with serve_arena(db, database_url, tmp_path, roster=roster, **env) as arena:
        ids = {
            r.display_name: r.id for r in await arena.rows("SELECT display_name, id FROM models")
        }
        yield arena, ids


async def round_(
    conn: AsyncConnection,
    slot_a: uuid.UUID,
    slot_b: uuid.UUID,
    vote: str | None = None,
    *,
    at: datetime | None = None,
    session: str | None = None,
    mode: str = "blind",
    **columns: Any,
) -> uuid.UUID:
    """A matchup with ``slot_a`` left and ``slot_b`` right (and any other ``columns``), and its
    vote (if any) at ``at``."""
    low, high = sorted((slot_a, slot_b), key=lambda u: u.bytes)
    matchup = await rows.matchup(
        conn, low, high, slot_a_model_id=slot_a, slot_b_model_id=slot_b, mode=mode, **columns
    )
    if vote is not None:
        await cast_vote(conn, matchup, vote, slot_a, slot_b, at=at, session=session)
    return matchup


async def cast_vote(
    conn: AsyncConnection,
    matchup: uuid.UUID,
    vote: str,
    slot_a: uuid.UUID,
    slot_b: uuid.UUID,
    *,
    at: datetime | None = None,
    session: str | None = None,
) -> None:
    winner = {"A": slot_a, "B": slot_b}.get(WINNER_SLOT.get(vote, ""))
    extra: dict[str, Any] = {"winner_model_id": winner, "anonymous_session_id": session}
    if at is not None:
        extra["created_at"] = at
    await rows.preference(conn, matchup, vote, **extra)


async def answer(
    conn: AsyncConnection,
    matchup: uuid.UUID,
    model: uuid.UUID,
    slot: str,
    *,
    tokens: int = 10,
    markdown: float = 0.1,
    ttft: int | None = 100,
    duration: int = 1000,
    error: str | None = None,
) -> None:
    await rows.response(
        conn,
        matchup,
        model,
        slot,
        output_token_count=tokens,
        markdown_density=markdown,
        ttft_ms=ttft,
        stream_duration_ms=duration,
        latency_ms=duration,
        error=error,
    )


async def disable(conn: AsyncConnection, model: uuid.UUID) -> None:
    await conn.execute(text("UPDATE models SET status = 'archived' WHERE id = :id"), {"id": model})


async def rate(
    conn: AsyncConnection,
    model: uuid.UUID,
    rating: float,
    half_width: float,
    *,
    component: int = 0,
    games: int = 0,
    style: float | None = None,
    style_component: int | None = None,
) -> None:
    """Rating rows as the rating process writes them (an interval ``rating ± half_width``)."""
    await conn.execute(
        text(
            "INSERT INTO model_ratings (model_id, rating, rating_stderr, ci_lower, ci_upper, "
            "component_id, games) VALUES (:m, :r, :se, :lo, :hi, :c, :g)"
        ),
        {
            "m": model,
            "r": rating,
            "se": half_width / 1.96,
            "lo": rating - half_width,
            "hi": rating + half_width,
            "c": component,
            "g": games,
        },
    )
    if style is not None:
        await conn.execute(
            text(
                "INSERT INTO model_style_ratings (model_id, style_controlled_rating, "
                "style_controlled_stderr, style_ci_lower, style_ci_upper, component_id, games) "
                "VALUES (:m, :r, :se, :lo, :hi, :c, :g)"
            ),
            {
                "m": model,
                "r": style,
                "se": half_width / 1.96,
                "lo": style - half_width,
                "hi": style + half_width,
                "c": component if style_component is None else style_component,
                "g": games,
            },
        )
