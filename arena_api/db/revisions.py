"""Which migration the code is at and which the database is at, read without Alembic.

``GET /health`` and ``/metrics`` report both on every probe, from the serving process; Alembic
itself (about 11 MB of a worker's memory with Mako) is needed only to migrate, which ``arena
serve`` does before the server starts (``arena_api.db.migrations``). A unit test holds
``head_revision`` to Alembic's own answer.
"""

from __future__ import annotations

import functools
import re
from pathlib import Path

from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

__all__ = ["VERSIONS", "current_revision", "head_revision"]

VERSIONS = Path(__file__).resolve().parents[2] / "alembic" / "versions"

_ASSIGNMENT = re.compile(
    r'^(?P<name>revision|down_revision)\s*(?::[^=]*)?=\s*(?:"(?P<id>[^"]*)"|None)\s*$', re.M
)


@functools.cache
def head_revision(versions: Path = VERSIONS) -> str:
    """The one revision of ``versions`` that no other revision follows.

    Raises:
        RuntimeError: the history is empty or has more than one head (a broken install).
    """
    revisions: set[str] = set()
    followed: set[str] = set()
    for script in versions.glob("*.py"):
        for match in _ASSIGNMENT.finditer(script.read_text()):
            if match["id"] is not None:
                (revisions if match["name"] == "revision" else followed).add(match["id"])
    heads = sorted(revisions - followed)
    if len(heads) != 1:
        raise RuntimeError(f"the migration history has {len(heads)} heads, not one: {heads}")
    return heads[0]


async def current_revision(engine: AsyncEngine) -> str | None:
    """The revision the database is at, or ``None`` before the first migration."""
    async with engine.connect() as connection:
        table = await connection.scalar(text("SELECT to_regclass('alembic_version')"))
        if table is None:
            return None
        revision = await connection.scalar(text("SELECT version_num FROM alembic_version"))
        return None if revision is None else str(revision)
