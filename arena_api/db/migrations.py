"""Alembic, driven from code: upgrade, downgrade and the head/current revisions."""

from __future__ import annotations

from pathlib import Path

from alembic import command
from alembic.config import Config
from alembic.runtime.migration import MigrationContext
from alembic.script import ScriptDirectory
from sqlalchemy import text
from sqlalchemy.engine import Connection
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["alembic_config", "current_revision", "downgrade", "head_revision", "upgrade"]

_ROOT = Path(__file__).resolve().parents[2]
#: The advisory lock a migration holds: replicas that start together migrate one at a time (the
#: later ones find the database at head and do nothing).
_LOCK = 1095913027


def alembic_config() -> Config:
    config = Config(str(_ROOT / "alembic.ini"))
    config.set_main_option("script_location", str(_ROOT / "alembic"))
    return config


def head_revision() -> str:
    head = ScriptDirectory.from_config(alembic_config()).get_current_head()
    if head is None:
        raise RuntimeError("the migration history is empty")
    return head


async def _with_connection(engine: AsyncEngine, action: str, revision: str) -> None:
    def run(connection: Connection) -> None:
        config = alembic_config()
        config.attributes["connection"] = connection
        getattr(command, action)(config, revision)

    async with engine.connect() as connection:
        await connection.execute(text(f"SELECT pg_advisory_lock({_LOCK})"))
        await connection.commit()
        try:
            await connection.run_sync(run)
            await connection.commit()
        finally:
            await connection.execute(text(f"SELECT pg_advisory_unlock({_LOCK})"))
            await connection.commit()


async def upgrade(engine: AsyncEngine, revision: str = "head") -> None:
    """Migrate the database forward; each revision runs in its own transaction."""
    await _with_connection(engine, "upgrade", revision)


async def downgrade(engine: AsyncEngine, revision: str) -> None:
    await _with_connection(engine, "downgrade", revision)


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at, or ``None`` before the first migration."""

    def read(connection: Connection) -> str | None:
        return MigrationContext.configure(connection).get_current_revision()

    async with engine.connect() as connection:
        return await connection.run_sync(read)
