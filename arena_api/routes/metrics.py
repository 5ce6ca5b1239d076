"""``GET /metrics``: the process's Prometheus metrics, behind ``ARENA_METRICS_TOKEN`` when set.

Each scrape checks the database (``arena_database_up``) and reads the rating process's latest
pass from it.
"""

from __future__ import annotations

import hmac

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena_api.routes._request import services_of
from arena_api.routes.errors import error_response

__all__ = ["routes"]

CONTENT_TYPE = "text/plain; version=0.0.4; charset=utf-8"


async def metrics(request: Request) -> Response:
    services = services_of(request)
    token = services.settings.metrics_token
    if token is not None:
        offered = request.headers.get("authorization", "").removeprefix("Bearer ").strip()
        if not hmac.compare_digest(offered.encode(), token.reveal().encode()):
            response = error_response(401, "unauthorized", "A valid metrics token is required")
            response.headers["www-authenticate"] = "Bearer"
            return response
    database = await services.database.check()
    # A scrape still answers while the database is down: `arena_database_up 0` is what an
    # alert needs, where a 503 would only look like a replica gone.
    rating = await services.reads.last_rating_pass() if database.reachable else None
    body = services.metrics.render(rating, database_up=database.reachable)
    return Response(body, media_type=CONTENT_TYPE)


routes: list[BaseRoute] = [Route("/metrics", metrics, methods=["GET"], name="metrics")]
