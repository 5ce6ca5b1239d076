from __future__ import annotations

from collections.abc import Callable

import pytest
from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect, text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.engine import create_engine
from arena_api.db.migrations import current_revision, downgrade, head_revision, upgrade
from arena_api.db.tables import metadata
from tests.integration import rows


async def test_upgrade_from_empty_reaches_head_with_every_table(
    fresh_database: Callable[[], str],
) -> None:
    engine = create_engine(fresh_database())

    await upgrade(engine)

    async with engine.connect() as conn:
        tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert set(metadata.tables) | {"alembic_version"} == tables
    assert await current_revision(engine) == head_revision()
    await engine.dispose()


async def test_downgrade_to_base_removes_everything_and_upgrade_restores_it(
    fresh_database: Callable[[], str],
) -> None:
    engine = create_engine(fresh_database())
    await upgrade(engine)

    await downgrade(engine, "base")

    async with engine.connect() as conn:
        tables = await conn.run_sync(lambda c: set(inspect(c).get_table_names()))
    assert tables == {"alembic_version"}
    await upgrade(engine)
    assert await current_revision(engine) == head_revision()
    await engine.dispose()


async def test_migrated_schema_matches_the_table_definitions(database_url: str) -> None:
    engine = create_engine(database_url)

    def diff(conn: Connection) -> list[object]:
        context = MigrationContext.configure(
            conn, opts={"compare_type": True, "compare_server_default": True}
        )
        return list(compare_metadata(context, metadata))

    async with engine.connect() as conn:
        differences = await conn.run_sync(diff)
    await engine.dispose()

    assert differences == []


async def _fill(engine: AsyncEngine) -> dict[str, int]:
    """A small arena's worth of rows, written with the columns the first revision has."""
    async with engine.begin() as conn:
        a, b, c = [await rows.model(conn, name) for name in ("alpha", "beta", "gamma")]
        votes = ("left", "right", "left", "both_good", "skip", "left")
        for index, vote in enumerate(votes):
            pair = (a, b) if index % 2 == 0 else (b, c)
            matchup = await rows.matchup(conn, *pair)
            await rows.response(conn, matchup, pair[0], "A")
            await rows.response(conn, matchup, pair[1], "B")
            conversation = await rows.conversation(conn)
            await rows.turn(conn, conversation, matchup, 0, None)
            await rows.preference(conn, matchup, vote)
    return {"matchups": 6, "responses": 12, "preferences": 6, "turns": 6, "models": 3}


_SUMMARIES = (
    # (what the triggers keep, the same computed from the rows)
    (
        "SELECT coalesce(sum(wins + losses + ties + skips), 0) FROM model_vote_stats",
        "SELECT 2 * count(*) FROM preferences",
    ),
    (
        "SELECT coalesce(sum(responses), 0) FROM model_response_stats",
        "SELECT count(*) FROM responses WHERE error IS NULL",
    ),
    (
        "SELECT coalesce(sum(matchups), 0) FROM pair_outcome_stats",
        "SELECT count(*) FROM matchups",
    ),
    (
        "SELECT coalesce(sum(responses), 0) || '/' || coalesce(sum(output_tokens), 0) "
        "FROM model_cost_daily",
        "SELECT count(*) || '/' || coalesce(sum(output_token_count), 0) FROM responses",
    ),
)


@pytest.mark.parametrize(
    "start",
    [
        "0001",
        "0002",
        "0003",
        "0004",
        "0005",
        "0006",
        "0007",
        "0008",
        "0009",
        "0010",
        "0011",
        "0012",
        "0013",
        "0014",
        "0015",
    ],
)
async def test_a_database_with_data_at_any_earlier_revision_upgrades_to_head_keeping_it(
    fresh_database: Callable[[], str], start: str
) -> None:
    engine = create_engine(fresh_database())
    await upgrade(engine, start)
    counts = await _fill(engine)

    await upgrade(engine)

    async with engine.begin() as conn:
        for table, count in counts.items():
            assert (await conn.execute(text(f"SELECT count(*) FROM {table}"))).scalar() == count
        for kept, computed in _SUMMARIES:
            assert (await conn.execute(text(kept))).scalar() == (
                await conn.execute(text(computed))
            ).scalar(), kept
        # And the upgraded schema takes new rounds of every mode.
        a, b = (await conn.execute(text("SELECT id FROM models LIMIT 2"))).scalars().all()
        named = await rows.matchup(conn, a, b, mode="named")
        await rows.preference(conn, named, "right")
    assert await current_revision(engine) == head_revision()
    await engine.dispose()
