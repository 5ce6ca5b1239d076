from __future__ import annotations

from collections.abc import Callable

from alembic.autogenerate import compare_metadata
from alembic.migration import MigrationContext
from sqlalchemy import inspect
from sqlalchemy.engine import Connection

from arena_api.db.engine import create_engine
from arena_api.db.migrations import current_revision, downgrade, head_revision, upgrade
from arena_api.db.tables import metadata


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
