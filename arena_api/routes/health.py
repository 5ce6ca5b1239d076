"""``GET /health``: is the process up, is its database reachable and migrated."""

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
        reachable = True
    except Exception:  # any driver or network failure means "not reachable" here
        current, reachable = None, False
    healthy = reachable and current == head
    body = {
        "status": "ok" if healthy else "degraded",
        "database": "reachable" if reachable else "unreachable",
        "migration": {"current": current, "head": head},
        "version": services.version,
        "uptimeSeconds": round(time.time() - services.started_at, 3),
    }
    return JSONResponse(body, status_code=200 if healthy else 503)


routes: list[BaseRoute] = [Route("/health", health, methods=["GET", "HEAD"], name="health")]
