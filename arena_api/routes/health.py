"""``GET /health``: is the process up, is its database reachable and migrated, is it draining,
how many models can answer and which are paused, and (one replica of several) can it reach the
Redis the replicas share."""

from __future__ import annotations

import time

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.core.responses import Health, MigrationState, ModelsHealth
from arena_api.routes._request import services_of

__all__ = ["routes"]


async def health(request: Request) -> JSONResponse:
    services = services_of(request)
    database = await services.database.check()
    reachable, current, head = database.reachable, database.current, database.head
    models: ModelsHealth | None = None
    if reachable:
        try:
            # The models that can answer; 0 or 1 is a setup to finish (the page says how), not
            # a fault to restart for, so it does not make the server unhealthy; nor do paused
            # models (the breaker tries them again by itself).
            paused = [p.model.display_name for p in services.arena.breaker.paused()]
            models = ModelsHealth(usable=await services.arena.usable_models(), paused=paused)
        except Exception:  # any driver or network failure means "not reachable" here
            current, models, reachable = None, None, False
    draining = services.arena.draining
    redis = None if services.cluster is None else await services.cluster.reachable()
    healthy = reachable and current == head and not draining and redis is not False
    body = Health(
        status="shutting_down" if draining else "ok" if healthy else "degraded",
        database="reachable" if reachable else "unreachable",
        migration=MigrationState(current=current, head=head),
        models=models,
        version=services.version,
        uptime_seconds=round(time.time() - services.started_at, 3),
        redis=None if redis is None else "reachable" if redis else "unreachable",
    )
    return JSONResponse(body.body(), status_code=200 if healthy else 503)


routes: list[BaseRoute] = [Route("/health", health, methods=["GET", "HEAD"], name="health")]
