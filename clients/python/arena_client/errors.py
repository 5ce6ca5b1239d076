"""The arena's refusals as exceptions, each carrying the server's machine-readable ``code``.

Every error answer of the arena is ``{"error": "<message>", "code": "<reason>"}`` (with
``details`` naming the offending fields on a 400). The status picks the class; ``code`` says
why, e.g. ``RateLimited("rate_limited")``, ``Conflict("not_enough_vision_models")``,
``NotFound("matchup_not_found")``. A failure of the network, not of the server, is a
``ConnectionLost``; a round whose stream ended with ``run_error`` raises ``RoundFailed`` where
its answers are asked for.
"""

from __future__ import annotations

import email.utils
import json
import time
from collections.abc import Mapping
from typing import Any

__all__ = [
    "ArenaError",
    "BadRequest",
    "Conflict",
    "ConnectionLost",
    "ControlRefused",
    "Forbidden",
    "NotFound",
    "PayloadTooLarge",
    "RateLimited",
    "RoundFailed",
    "ServerError",
    "ServiceUnavailable",
    "Unauthorized",
    "UnsupportedMediaType",
    "error_from_answer",
    "retry_after_seconds",
]


class ArenaError(Exception):
    """An answer of the arena that is not a success.

    Attributes:
        status: the HTTP status (0 where there was no answer).
        code: the server's reason, stable across versions (``rate_limited``, ``join_unpaired``).
        message: the server's sentence for people.
        details: a 400's offending fields, ``{field: [problems]}``.
        retry_after: seconds the server asked to wait (429, 503), else ``None``.
    """

    def __init__(
        self,
        message: str,
        *,
        status: int = 0,
        code: str = "error",
        details: Mapping[str, list[str]] | None = None,
        retry_after: float | None = None,
    ) -> None:
        super().__init__(message)
        self.message, self.status, self.code = message, status, code
        self.details = dict(details or {})
        self.retry_after = retry_after

    def __str__(self) -> str:
        where = f"{self.status} " if self.status else ""
        return f"{where}{self.code}: {self.message}"


class BadRequest(ArenaError):
    """400: the request is malformed (``invalid_request``, with ``details``)."""


class Unauthorized(ArenaError):
    """401: a token or a session is needed (``unauthorized``)."""


class Forbidden(ArenaError):
    """403: the token's role may not do this (``forbidden``)."""


class NotFound(ArenaError):
    """404: no such matchup, conversation, suite or run."""


class Conflict(ArenaError):
    """409: the state does not allow it (``already_voted``, ``join_unpaired``, ...)."""


class PayloadTooLarge(ArenaError):
    """413: a body, a prompt or an image over its limit."""


class UnsupportedMediaType(ArenaError):
    """415: the body is not JSON."""


class RateLimited(ArenaError):
    """429: too many requests; ``retry_after`` says for how long."""


class ServiceUnavailable(ArenaError):
    """503: the database is unreachable or the server is shutting down; try again."""


class ServerError(ArenaError):
    """Any other 5xx (a bug of the server's, or a proxy's error page)."""


class ConnectionLost(ArenaError):
    """The connection failed or dropped before the answer was whole (no status).

    A round keeps running on the server when its stream drops: ``Round.recover()`` reads its
    stored answers, and its vote token stays good.
    """


class RoundFailed(ArenaError):
    """The round's stream ended with ``run_error`` (``code`` is the event's)."""


class ControlRefused(ArenaError):
    """A stop or steer the server refused (``reason`` as ``message``; ``code`` when given)."""


_BY_STATUS: dict[int, type[ArenaError]] = {
    400: BadRequest,
    401: Unauthorized,
    403: Forbidden,
    404: NotFound,
    409: Conflict,
    413: PayloadTooLarge,
    415: UnsupportedMediaType,
    429: RateLimited,
    503: ServiceUnavailable,
}


def retry_after_seconds(value: str | None, now: float | None = None) -> float | None:
    """``Retry-After`` as seconds: delta-seconds or an HTTP date; ``None`` when absent or
    unreadable."""
    if not value:
        return None
    value = value.strip()
    if value.isdigit():
        return float(value)
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def error_from_answer(status: int, headers: Mapping[str, str], body: bytes) -> ArenaError:
    """The exception of a non-success answer (``headers`` with lower-case names, or any
    case-insensitive mapping such as httpx's)."""
    payload: Any = None
    try:
        payload = json.loads(body) if body else None
    except ValueError:
        payload = None
    if isinstance(payload, dict) and isinstance(payload.get("code"), str):
        message = str(payload.get("error") or payload.get("message") or payload["code"])
        code = payload["code"]
        details = payload.get("details") if isinstance(payload.get("details"), dict) else None
    else:
        text = body.decode("utf-8", "replace").strip()
        message, code, details = (text[:300] or f"HTTP {status}"), f"http_{status}", None
    kind = _BY_STATUS.get(status) or (ServerError if status >= 500 else ArenaError)
    return kind(
        message,
        status=status,
        code=code,
        details=details,
        retry_after=retry_after_seconds(headers.get("retry-after")),
    )
