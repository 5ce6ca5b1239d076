"""The arena's Python client: rounds as typed event streams, votes, the judge, the boards,
suites and the open vote data, blocking (``Arena``) or asyncio (``AsyncArena``).

    from arena_client import Arena

    with Arena("http://localhost:3001") as arena:
        round_ = arena.round("Explain JWTs in two sentences").wait()
        print(round_.left, round_.right, sep="\\n---\\n")
        print(round_.vote("left").models)

The models of every body and event (``arena_client.models``) are generated from the server's
OpenAPI document, and the package is versioned with the server.
"""

from __future__ import annotations

from arena_client import models
from arena_client._async import AsyncAnalytics, AsyncArena, AsyncRound, AsyncSuites
from arena_client._sync import Analytics, Arena, Round, Suites
from arena_client._wire import Retry
from arena_client.errors import (
    ArenaError,
    BadRequest,
    Conflict,
    ConnectionLost,
    ControlRefused,
    Forbidden,
    NotFound,
    PayloadTooLarge,
    RateLimited,
    RoundFailed,
    ServerError,
    ServiceUnavailable,
    Unauthorized,
    UnsupportedMediaType,
)
from arena_client.models import (
    MatchupDone,
    MatchupStarted,
    NativeEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)

__version__ = "0.1.0"

__all__ = [
    "Analytics",
    "Arena",
    "ArenaError",
    "AsyncAnalytics",
    "AsyncArena",
    "AsyncRound",
    "AsyncSuites",
    "BadRequest",
    "Conflict",
    "ConnectionLost",
    "ControlRefused",
    "Forbidden",
    "MatchupDone",
    "MatchupStarted",
    "NativeEvent",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "Retry",
    "Round",
    "RoundFailed",
    "RunError",
    "ServerError",
    "ServiceUnavailable",
    "SlotDone",
    "SlotError",
    "Steered",
    "Suites",
    "Token",
    "Unauthorized",
    "UnsupportedMediaType",
    "__version__",
    "models",
]
