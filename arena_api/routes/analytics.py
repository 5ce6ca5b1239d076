"""``GET /api/arena/analytics/*``: the insights dashboard's model-level aggregates.

Query parameters are checked here; a bad value is a ``400 invalid_request`` whose ``details``
names the parameter. ``since`` is an ISO 8601 instant with a timezone (``2026-07-01T00:00:00Z``);
a ``+hh:mm`` offset sent unencoded arrives as a space, which is read back as the ``+`` it was.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from typing import TypeVar

from starlette.datastructures import QueryParams
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import InvalidRequest
from arena_api.core.views import ActivityBucket, CostBucket, View, Votes
from arena_api.routes._request import services_of
from arena_api.services import ReadService
from arena_api.services.reads import check_category, check_votes

__all__ = [
    "parse_bucket",
    "parse_category",
    "parse_points",
    "parse_since",
    "parse_votes",
    "routes",
]

_Bucket = TypeVar("_Bucket", ActivityBucket, CostBucket)
_BUCKETS: tuple[ActivityBucket, ...] = ("day", "hour")
_COST_BUCKETS: tuple[CostBucket, ...] = ("day", "week", "month")
# "...T09:00:00 02:00": a "+" that the query string decoding turned into a space.
_LOST_PLUS = re.compile(r"(T[\d:.,]+) (\d{2}(?::?\d{2})?)$")


def _json(view: View) -> Response:
    """The view's JSON, encoded by pydantic-core (a history can hold many thousand points)."""
    return Response(view.wire_json(), media_type="application/json")


def _reads(request: Request) -> ReadService:
    return services_of(request).reads


def parse_since(params: QueryParams, name: str = "since") -> datetime | None:
    """The ``since`` (or ``name``) parameter as an aware datetime, or ``None`` when absent.

    Raises:
        InvalidRequest: it is not an ISO 8601 timestamp, has no timezone, or is not an instant
            in years 1 to 9999 once in UTC.
    """
    raw = params.get(name)
    if raw is None:
        return None
    try:
        value = datetime.fromisoformat(_LOST_PLUS.sub(r"\1+\2", raw.strip()))
    except ValueError:
        raise InvalidRequest(
            f"{name} must be an ISO 8601 timestamp with a timezone",
            details={name: ["not an ISO 8601 timestamp"]},
        ) from None
    if value.utcoffset() is None:
        raise InvalidRequest(
            f"{name} must be an ISO 8601 timestamp with a timezone",
            details={name: ["needs a timezone, e.g. Z"]},
        )
    try:
        # In UTC, as the database compares it: 0001-01-01T00:00+01:00 is before year 1.
        return value.astimezone(UTC)
    except OverflowError:
        raise InvalidRequest(
            f"{name} is out of range", details={name: ["must fall within years 1 to 9999 UTC"]}
        ) from None


def parse_bucket(params: QueryParams, allowed: tuple[_Bucket, ...]) -> _Bucket:
    """The ``bucket`` parameter, ``day`` when absent.

    Raises:
        InvalidRequest: any other value than those ``allowed``.
    """
    raw = params.get("bucket", "day")
    for bucket in allowed:
        if raw == bucket:
            return bucket
    names = ", ".join(allowed[:-1]) + f" or {allowed[-1]}"
    raise InvalidRequest(f"bucket must be {names}", details={"bucket": [f"must be {names}"]})


def parse_votes(params: QueryParams) -> Votes:
    """The ``votes`` parameter (whose votes a read counts), ``human`` when absent.

    Raises:
        InvalidRequest: any other value than ``human``, ``judge`` or ``all``.
    """
    return check_votes(params.get("votes", "human"))


def parse_category(params: QueryParams) -> str | None:
    """The ``category`` parameter (one slice of prompts), ``None`` when absent.

    Raises:
        InvalidRequest: not a category or ``language:<code>``.
    """
    return check_category(params.get("category"))


def _cut(params: QueryParams) -> tuple[Votes, str | None]:
    return parse_votes(params), parse_category(params)


async def summary(request: Request) -> Response:
    return _json(await _reads(request).analytics_summary(*_cut(request.query_params)))


async def categories(request: Request) -> Response:
    return _json(await _reads(request).categories(parse_votes(request.query_params)))


async def head_to_head(request: Request) -> Response:
    return _json(await _reads(request).head_to_head(*_cut(request.query_params)))


async def model_metrics(request: Request) -> Response:
    return _json(await _reads(request).model_metrics(*_cut(request.query_params)))


async def activity(request: Request) -> Response:
    bucket = parse_bucket(request.query_params, _BUCKETS)
    since = parse_since(request.query_params)
    return _json(await _reads(request).activity(bucket, since, *_cut(request.query_params)))


async def cost(request: Request) -> Response:
    bucket = parse_bucket(request.query_params, _COST_BUCKETS)
    since = parse_since(request.query_params)
    category = parse_category(request.query_params)
    return _json(await _reads(request).cost(bucket, since, category))


async def style_control(request: Request) -> Response:
    return _json(await _reads(request).style_control(*_cut(request.query_params)))


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
    votes, category = _cut(request.query_params)
    return _json(
        await _reads(request).rating_history(since, points=points, votes=votes, category=category)
    )


async def reason_counts(request: Request) -> Response:
    return _json(await _reads(request).reason_counts(*_cut(request.query_params)))


async def judge_agreement(request: Request) -> Response:
    return _json(await _reads(request).judge_agreement(parse_category(request.query_params)))


_PREFIX = "/api/arena/analytics"

routes: list[BaseRoute] = [
    Route(f"{_PREFIX}/summary", summary, methods=["GET"], name="analytics_summary"),
    Route(f"{_PREFIX}/categories", categories, methods=["GET"], name="analytics_categories"),
    Route(f"{_PREFIX}/head-to-head", head_to_head, methods=["GET"], name="analytics_head_to_head"),
    Route(
        f"{_PREFIX}/model-metrics", model_metrics, methods=["GET"], name="analytics_model_metrics"
    ),
    Route(f"{_PREFIX}/activity", activity, methods=["GET"], name="analytics_activity"),
    Route(f"{_PREFIX}/cost", cost, methods=["GET"], name="analytics_cost"),
    Route(
        f"{_PREFIX}/style-control", style_control, methods=["GET"], name="analytics_style_control"
    ),
    Route(
        f"{_PREFIX}/rating-history",
        rating_history,
        methods=["GET"],
        name="analytics_rating_history",
    ),
    Route(f"{_PREFIX}/reasons", reason_counts, methods=["GET"], name="analytics_reasons"),
    Route(
        f"{_PREFIX}/judge-agreement",
        judge_agreement,
        methods=["GET"],
        name="analytics_judge_agreement",
    ),
]
