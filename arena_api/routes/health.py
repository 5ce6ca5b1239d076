"""``GET /health``: is the process up, is its database reachable and migrated, is it draining.

``POST /_arena/drain`` is how ``arena serve`` begins a graceful shutdown: it answers once the
rounds in flight finished or were stopped. It exists only when ``arena serve`` started the
server (``ARENA_INTERNAL_TOKEN``, a fresh random value per start) and needs that token."""

from __future__ import annotations

import hmac
import os
import time

from sqlalchemy import text
from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.db.migrations import current_revision, head_revision

__all__ = ["INTERNAL_TOKEN", "routes"]

#: The variable ``arena serve`` hands its server: the token of ``POST /_arena/drain``.
INTERNAL_TOKEN = "ARENA_INTERNAL_TOKEN"


async def health(request: Request) -> JSONResponse:
    services = request.app.state.services
    head = head_revision()
    try:
        async with services.engine.connect() as conn:
            await conn.execute(text("SELECT 1"))
        current = await current_revision(services.engine)
        reachable = True
    except Exception:  # any driver or network failure means "not reachable" here
        current, reachable = None, False
    draining = services.arena.draining
    healthy = reachable and current == head and not draining
    body = {
        # A load balancer stops sending work to a server that is shutting down.
        "status": "shutting_down" if draining else "ok" if healthy else "degraded",
        "database": "reachable" if reachable else "unreachable",
        "migration": {"current": current, "head": head},
        "version": services.version,
        "uptimeSeconds": round(time.time() - services.started_at, 3),
    }
    return JSONResponse(body, status_code=200 if healthy else 503)


async def drain(request: Request) -> JSONResponse:
    token = os.environ.get(INTERNAL_TOKEN)
    offered = request.headers.get("x-arena-internal", "")
    if not token or not hmac.compare_digest(offered.encode(), token.encode()):
        return JSONResponse({"error": "Not found", "code": "not_found"}, status_code=404)
    services = request.app.state.services
    stopped = await services.arena.drain(services.settings.shutdown_grace_s)
    return JSONResponse({"status": "drained", "roundsStopped": stopped})


routes: list[BaseRoute] = [
    Route("/health", health, methods=["GET", "HEAD"], name="health"),
    Route("/_arena/drain", drain, methods=["POST"], name="drain"),
]
