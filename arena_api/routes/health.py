"""``GET /health``: is the process up, is its database reachable and migrated, is it draining,
how many models can answer, and (one replica of several) can it reach the Redis the replicas
share."""

from __future__ import annotations

import time

from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.db.migrations import current_revision, head_revision

__all__ = ["routes"]


async def health(request: Request) -> JSONResponse:
    services = request.app.state.services
    head = head_revision()
    try:
        async with services.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        current = await current_revision(services.engine)
        # The models that can answer; 0 or 1 is a setup to finish (the page says how), not a
        # fault to restart for, so it does not make the server unhealthy.
        models: int | None = await services.arena.usable_models()
        reachable = True
    except Exception:  # any driver or network failure means "not reachable" here
        current, models, reachable = None, None, False
    draining = services.arena.draining
    redis = None if services.cluster is None else await services.cluster.reachable()
    healthy = reachable and current == head and not draining and redis is not False
    body: dict[str, object] = {
        # A load balancer stops sending work to a server that is shutting down.
        "status": "shutting_down" if draining else "ok" if healthy else "degraded",
        "database": "reachable" if reachable else "unreachable",
        "migration": {"current": current, "head": head},
        "models": models,
        "version": services.version,
        "uptimeSeconds": round(time.time() - services.started_at, 3),
    }
    if redis is not None:
        body["redis"] = "reachable" if redis else "unreachable"
    return JSONResponse(body, status_code=200 if healthy else 503)


routes: list[BaseRoute] = [Route("/health", health, methods=["GET", "HEAD"], name="health")]
