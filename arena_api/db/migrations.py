"""Alembic, driven from code: upgrade and downgrade (the head and current revisions, read without
Alembic, are ``arena_api.db.revisions``'s)."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.db.revisions import current_revision, head_revision
from arena_api.db.tables import SCHEMA_LOCK_KEY

__all__ = ["alembic_config", "current_revision", "downgrade", "head_revision", "upgrade"]

_ROOT = Path(__file__).resolve().parents[2]


def alembic_config() -> Config:
    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "alembic"))
    return config


async def _with_connection(engine: AsyncEngine, action: str, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)

    async with engine.connect() as connection:
        # The schema's lock, exclusively: replicas that start together migrate one at a time
        # (the later ones find the database at head and do nothing), and a rating pass in
        # progress ends first.
        await connection.execute(text(f"SELECT pg_advisory_lock({SCHEMA_LOCK_KEY})"))
        await connection.commit()
        try:
            await connection.run_sync(run)
            await connection.commit()
        finally:
            await connection.execute(text(f"SELECT pg_advisory_unlock({SCHEMA_LOCK_KEY})"))
            await connection.commit()


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database forward; each revision runs in its own transaction."""
    await _with_connection(engine, "upgrade", revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    await _with_connection(engine, "downgrade", revision)
