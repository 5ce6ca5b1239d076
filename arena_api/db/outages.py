"""A database that cannot be reached answers 503 ``database_unavailable``, not a 500.

PostgreSQL restarting, a failover, a dropped network: the driver raises connection errors
(refused, reset, "the database system is starting up", "terminating connection due to
administrator command") directly from asyncpg or wrapped by SQLAlchemy. ``raises_unavailable``
wraps every public coroutine of a repository class so that those, and only those, become the
core's ``StorageUnavailable``; any other database error stays what it is (a bug is not an
outage). The pools reconnect by themselves once the server is back.
"""

from __future__ import annotations

import functools
import inspect
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

import asyncpg
from sqlalchemy.exc import DBAPIError

from arena_api.core.errors import StorageUnavailable

__all__ = ["is_outage", "raises_unavailable"]

_OUTAGES = (
    OSError,  # refused, reset, unreachable, timed out
    asyncpg.PostgresConnectionError,  # class 08: the connection failed or does not exist
    asyncpg.exceptions.CannotConnectNowError,  # 57P03: starting up or shutting down
    asyncpg.exceptions.AdminShutdownError,  # 57P01
    asyncpg.exceptions.CrashShutdownError,  # 57P02
)

C = TypeVar("C", bound=type)


def is_outage(exc: BaseException) -> bool:
    """Whether ``exc`` (or what it wraps) says the database cannot be reached."""
    seen: set[int] = set()
    pending: list[BaseException | None] = [exc]
    while pending:
        error = pending.pop()
        if error is None or id(error) in seen:
            continue
        seen.add(id(error))
        if isinstance(error, _OUTAGES):
            return True
        if isinstance(error, asyncpg.InterfaceError) and "closed" in str(error):
            return True
        if isinstance(error, asyncpg.InternalClientError) and "in progress" in str(error):
            # A pooled connection the outage broke mid-statement (its protocol state stuck);
            # the pool terminates it on release, so a retry gets a fresh one.
            return True
        if isinstance(error, DBAPIError) and error.connection_invalidated:
            return True
        pending += [error.__cause__, error.__context__, getattr(error, "orig", None)]
    return False


def _translated(method: Callable[..., Awaitable[Any]]) -> Callable[..., Awaitable[Any]]:
    @functools.wraps(method)
    async def call(*args: Any, **kwargs: Any) -> Any:
        try:
            return await method(*args, **kwargs)
        except StorageUnavailable:
            raise
        except Exception as exc:
            if is_outage(exc):
                raise StorageUnavailable() from exc
            raise

    return call


def raises_unavailable(cls: C) -> C:
    """Class decorator: every public coroutine method raises ``StorageUnavailable`` on an
    outage."""
    for name, member in list(vars(cls).items()):
        if not name.startswith("_") and inspect.iscoroutinefunction(member):
            setattr(cls, name, _translated(member))
    return cls
