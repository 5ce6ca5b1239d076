"""Alembic environment: runs migrations on a connection handed over by arena_api.db.migrations,
or on DATABASE_URL when invoked through the `alembic` command."""

from __future__ import annotations

import asyncio
import os

from alembic import context
from sqlalchemy.engine import Connection

from arena_api.db.engine import create_engine
from arena_api.db.tables import metadata

config = context.config
target_metadata = metadata


def _run(connection: Connection) -> None:
    context.configure(
        connection=connection,
        target_metadata=target_metadata,
        compare_type=True,
        compare_server_default=True,
        transaction_per_migration=True,
    )
    with context.begin_transaction():
        context.run_migrations()


async def _run_on_url(url: str) -> None:
    engine = create_engine(url)
    try:
        async with engine.connect() as connection:
            await connection.run_sync(_run)
            await connection.commit()
    finally:
        await engine.dispose()


connection = config.attributes.get("connection")
if connection is not None:
    _run(connection)
else:
    url = config.attributes.get("url") or os.environ.get("DATABASE_URL")
    if not url:
        raise SystemExit("DATABASE_URL is not set (or use `arena db upgrade`)")
    asyncio.run(_run_on_url(url))
