"""``POST /_arena/drain``: how ``arena serve`` begins a graceful shutdown.

It answers once the rounds in flight finished or were stopped (``ArenaService.drain``). It
exists only when ``arena serve`` started the server (``ARENA_INTERNAL_TOKEN``, a fresh random
value per start) and needs that token; otherwise it is a 404 like any unknown path.
"""

from __future__ import annotations

import hmac
import os

from starlette.requests import Request
from starlette.responses import JSONResponse
from starlette.routing import BaseRoute, Route

from arena_api.routes._request import services_of
from arena_api.routes.errors import error_response

__all__ = ["INTERNAL_TOKEN", "routes"]

#: The variable ``arena serve`` hands its server: the token of ``POST /_arena/drain``.
INTERNAL_TOKEN = "ARENA_INTERNAL_TOKEN"


async def drain(request: Request) -> JSONResponse:
    token = os.environ.get(INTERNAL_TOKEN)
    offered = request.headers.get("x-arena-internal", "")
    if not token or not hmac.compare_digest(offered.encode(), token.encode()):
        return error_response(404, "not_found", "Not found")
    services = services_of(request)
    await services.suites.close()  # its runs stop whole prompts, resumable, before rounds stop
    stopped = await services.arena.drain(services.settings.shutdown_grace_s)
    return JSONResponse({"status": "drained", "roundsStopped": stopped})


routes: list[BaseRoute] = [Route("/_arena/drain", drain, methods=["POST"], name="drain")]
