"""The rating process's own connection to PostgreSQL, and what its failures mean.

One small async engine (asyncpg driver) per process. ``DATABASE_URL`` may be written
``postgres://``, ``postgresql://`` or ``postgresql+asyncpg://``; the embedded server's form
``postgresql://postgres:@/arena?host=/socket/dir`` works unchanged. ``database_error`` maps a
driver or network exception onto the ``DatabaseError`` branch the worker acts on.
"""

from __future__ import annotations

from sqlalchemy import exc as sa_exc
from sqlalchemy.engine import make_url
from sqlalchemy.ext.asyncio import AsyncEngine, create_async_engine

from arena_rating._errors import DatabaseError, DatabaseUnreachable, SchemaMissing

__all__ = ["CONNECT_TIMEOUT_S", "create_rating_engine", "database_error", "describe_url"]

#: How long one connection attempt may take before the database counts as unreachable.
CONNECT_TIMEOUT_S = 10.0
APPLICATION_NAME = "arena_rating"

# SQLSTATE classes and codes that mean "cannot use this database now" rather than a bug.
_UNREACHABLE_CLASSES = ("08", "28", "57")  # connection, authorisation, operator intervention
_UNREACHABLE_CODES = {"3D000"}  # the database does not exist
_SCHEMA_CODES = {"42P01", "42703"}  # undefined table / column: not migrated


def async_url(url: str) -> str:
    """``url`` with the scheme of SQLAlchemy's asyncpg dialect."""
    scheme, sep, rest = url.partition("://")
    if not sep:
        raise ValueError(f"not a database URL: {url!r}")
    return f"postgresql+asyncpg://{rest}" if scheme in ("postgres", "postgresql") else url


def describe_url(url: str) -> str:
    """``url`` fit for a log line: the password replaced by ``***``."""
    try:
        return make_url(async_url(url)).render_as_string(hide_password=True)
    except Exception:  # a URL too malformed to parse is still worth naming, minus credentials
        return url.partition("://")[0] + "://…"


def create_rating_engine(url: str, *, pool_size: int = 2) -> AsyncEngine:
    """An async engine for the rating process (a small pool: one pass at a time)."""
    return create_async_engine(
        async_url(url),
        pool_size=pool_size,
        max_overflow=2,
        pool_pre_ping=True,
        connect_args={
            "timeout": CONNECT_TIMEOUT_S,
            "server_settings": {"application_name": APPLICATION_NAME},
        },
    )


def database_error(error: BaseException) -> DatabaseError | None:
    """The ``DatabaseError`` that ``error`` amounts to, or None if it is not a database failure.

    Network errors (refused, no such socket, timeout, unknown host) and SQLSTATEs of the
    connection, authorisation and "database does not exist" kinds are ``DatabaseUnreachable``;
    an undefined table or column is ``SchemaMissing``.
    """
    if isinstance(error, DatabaseError):
        return error
    message = " ".join(str(error).split()) or type(error).__name__
    if isinstance(error, OSError):  # ConnectionRefusedError, FileNotFoundError, TimeoutError...
        return DatabaseUnreachable(message)
    if isinstance(error, sa_exc.DBAPIError):
        code = getattr(error.orig, "sqlstate", None) or getattr(error.orig, "pgcode", None)
        orig = " ".join(str(error.orig).split()) if error.orig is not None else message
        orig = orig.split(": ", 1)[-1] if orig.startswith("<class") else orig
        if code in _SCHEMA_CODES:
            return SchemaMissing(orig)
        if (
            error.connection_invalidated
            or isinstance(error, sa_exc.InterfaceError)
            or (
                code is not None
                and (code in _UNREACHABLE_CODES or code[:2] in _UNREACHABLE_CLASSES)
            )
        ):
            return DatabaseUnreachable(orig)
    if isinstance(error, sa_exc.DisconnectionError | sa_exc.TimeoutError):
        return DatabaseUnreachable(message)
    return None
