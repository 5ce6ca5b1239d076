"""Shared fixtures: a real, migrated PostgreSQL and the real API on a loopback port.

The database is the embedded server in a temporary folder, or the server named by
``ARENA_TEST_DATABASE_URL``; either way the session gets a database of its own, created here,
migrated with Alembic (so the migrations are exercised too) and dropped at the end.
"""

from __future__ import annotations

import os
import socket
import uuid
from collections.abc import AsyncIterator, Callable, Iterator

import asyncpg
import pytest
from sqlalchemy import text
from sqlalchemy.ext.asyncio import AsyncEngine

from arena_api.app import create_api
from arena_api.db.engine import create_engine, embedded_postgres
from arena_api.db.migrations import upgrade
from arena_api.db.repository import seed_roster
from arena_api.db.tables import metadata
from arena_api.roster import Roster
from tests.support import RedisServer, ServerThread, free_port, make_settings, run_blocking


def _with_database(url: str, name: str) -> str:
    """``url`` pointing at database ``name`` (the path part replaced, the query kept)."""
    head, _, tail = url.partition("?")
    base = head.rsplit("/", 1)[0]
    return f"{base}/{name}" + (f"?{tail}" if tail else "")


def _asyncpg_dsn(url: str) -> str:
    return "postgresql://" + url.partition("://")[2]


@pytest.fixture(scope="session")
def pg_admin_url(tmp_path_factory: pytest.TempPathFactory) -> Iterator[str]:
    """An administrative URL of a running PostgreSQL server."""
    given = os.environ.get("ARENA_TEST_DATABASE_URL")
    if given:
        yield given
        return
    with embedded_postgres(tmp_path_factory.mktemp("embedded")) as pg:
        yield pg.admin_url


@pytest.fixture(scope="session")
def fresh_database(pg_admin_url: str) -> Iterator[Callable[[], str]]:
    """A factory of empty databases on the test server, all dropped at the end of the session."""
    created: list[str] = []

    async def run(sql: str) -> None:
        conn = await asyncpg.connect(_asyncpg_dsn(pg_admin_url))
        try:
            await conn.execute(sql)
        finally:
            await conn.close()

    def make() -> str:
        name = f"arena_test_{uuid.uuid4().hex[:12]}"
        run_blocking(run(f"CREATE DATABASE {name}"))
        created.append(name)
        return _with_database(pg_admin_url, name)

    yield make
    for name in created:
        run_blocking(run(f"DROP DATABASE IF EXISTS {name} WITH (FORCE)"))


def prepare_database(url: str, roster: Roster | None = None) -> str:
    """Migrate the database at ``url`` to the newest schema, and seed ``roster`` if given."""

    async def prepare() -> None:
        engine = create_engine(url)
        try:
            await upgrade(engine)
            if roster is not None:
                await seed_roster(engine, roster)
        finally:
            await engine.dispose()

    run_blocking(prepare())
    return url


@pytest.fixture(scope="session")
def database_url(fresh_database: Callable[[], str]) -> str:
    """The session's migrated database."""
    return prepare_database(fresh_database())


@pytest.fixture(scope="session")
async def engine(database_url: str) -> AsyncIterator[AsyncEngine]:
    engine = create_engine(database_url)
    yield engine
    await engine.dispose()


_TABLES = ", ".join(table.name for table in metadata.sorted_tables)


@pytest.fixture
async def db(engine: AsyncEngine) -> AsyncEngine:
    """The session engine, with every table emptied before the test."""
    async with engine.begin() as conn:
        await conn.execute(text(f"TRUNCATE {_TABLES} CASCADE"))
    return engine


@pytest.fixture(scope="session")
def redis_server(tmp_path_factory: pytest.TempPathFactory) -> Iterator[RedisServer]:
    """A Redis of the test session's own (never the machine's)."""
    with RedisServer(tmp_path_factory.mktemp("redis")) as server:
        yield server


@pytest.fixture
def redis_url(redis_server: RedisServer) -> str:
    """The session's Redis, emptied for this test."""
    with socket.create_connection(("127.0.0.1", redis_server.port), timeout=5) as sock:
        sock.sendall(b"FLUSHALL\r\n")
        assert sock.recv(16).startswith(b"+OK")
    return redis_server.url


@pytest.fixture(scope="session")
def api_url(database_url: str) -> Iterator[str]:
    """Base URL of the API app (the same ``create_api`` Reflex mounts) on a loopback port."""
    app = create_api(make_settings(database_url), standalone=True)
    with ServerThread(app, free_port()) as server:
        yield server.url
