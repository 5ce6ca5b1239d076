"""``GET /api/arena/analytics/*``: the insights dashboard's model-level aggregates.

Query parameters are checked here; a bad value is a ``400 invalid_request`` whose ``details``
names the parameter. ``since`` is an ISO 8601 instant with a timezone (``2026-07-01T00:00:00Z``);
a ``+hh:mm`` offset sent unencoded arrives as a space, which is read back as the ``+`` it was.
"""

from __future__ import annotations

import re
from datetime import datetime

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import InvalidRequest
from arena_api.core.views import ActivityBucket, View
from arena_api.services import ReadService

__all__ = ["parse_bucket", "parse_points", "parse_since", "routes"]

_BUCKETS: tuple[ActivityBucket, ...] = ("day", "hour")
# "...T09:00:00 02:00": a "+" that the query string decoding turned into a space.
_LOST_PLUS = re.compile(r"(T[\d:.,]+) (\d{2}(?::?\d{2})?)$")


def _json(view: View) -> Response:
    """The view's JSON, encoded by pydantic-core (a history can hold many thousand points)."""
    return Response(view.wire_json(), media_type="application/json")


def _reads(request: Request) -> ReadService:
    return request.app.state.services.reads  # type: ignore[no-any-return]


def parse_since(params: QueryParams) -> datetime | None:
    """The ``since`` parameter as an aware datetime, or ``None`` when absent.

    Raises:
        InvalidRequest: it is not an ISO 8601 timestamp, or has no timezone.
    """
    raw = params.get("since")
    if raw is None:
        return None
    try:
        value = datetime.fromisoformat(_LOST_PLUS.sub(r"\1+\2", raw.strip()))
    except ValueError:
        raise InvalidRequest(
            "since must be an ISO 8601 timestamp with a timezone",
            details={"since": ["not an ISO 8601 timestamp"]},
        ) from None
    if value.utcoffset() is None:
        raise InvalidRequest(
            "since must be an ISO 8601 timestamp with a timezone",
            details={"since": ["needs a timezone, e.g. Z"]},
        )
    return value


def parse_bucket(params: QueryParams) -> ActivityBucket:
    """The ``bucket`` parameter, ``day`` when absent.

    Raises:
        InvalidRequest: any other value than ``day`` or ``hour``.
    """
    raw = params.get("bucket", "day")
    for bucket in _BUCKETS:
        if raw == bucket:
            return bucket
    raise InvalidRequest("bucket must be day or hour", details={"bucket": ["must be day or hour"]})


async def summary(request: Request) -> Response:
    return _json(await _reads(request).analytics_summary())


async def head_to_head(request: Request) -> Response:
    return _json(await _reads(request).head_to_head())


async def model_metrics(request: Request) -> Response:
    return _json(await _reads(request).model_metrics())


async def activity(request: Request) -> Response:
    bucket = parse_bucket(request.query_params)
    since = parse_since(request.query_params)
    return _json(await _reads(request).activity(bucket, since))


async def style_control(request: Request) -> Response:
    return _json(await _reads(request).style_control())


def parse_points(params: QueryParams) -> int | None:
    """The ``points`` parameter (thin the history to that many refits), or ``None``.

    Raises:
        InvalidRequest: it is not a whole number (the service checks its range).
    """
    raw = params.get("points")
    if raw is None:
        return None
    try:
        return int(raw)
    except ValueError:
        raise InvalidRequest(
            "points must be a whole number", details={"points": ["not a whole number"]}
        ) from None


async def rating_history(request: Request) -> Response:
    since = parse_since(request.query_params)
    points = parse_points(request.query_params)
    return _json(await _reads(request).rating_history(since, points=points))


_PREFIX = "/api/arena/analytics"

routes: list[BaseRoute] = [
    Route(f"{_PREFIX}/summary", summary, methods=["GET"], name="analytics_summary"),
    Route(f"{_PREFIX}/head-to-head", head_to_head, methods=["GET"], name="analytics_head_to_head"),
    Route(
        f"{_PREFIX}/model-metrics", model_metrics, methods=["GET"], name="analytics_model_metrics"
    ),
    Route(f"{_PREFIX}/activity", activity, methods=["GET"], name="analytics_activity"),
    Route(
        f"{_PREFIX}/style-control", style_control, methods=["GET"], name="analytics_style_control"
    ),
    Route(
        f"{_PREFIX}/rating-history",
        rating_history,
        methods=["GET"],
        name="analytics_rating_history",
    ),
]
