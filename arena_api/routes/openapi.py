"""``GET /openapi.json``: the OpenAPI 3.1 document of the HTTP API (``arena_api.openapi``).

Open without a token, like ``/health``; built and encoded once per process, so an answer costs
nothing but sending the bytes.
"""

from __future__ import annotations

from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import BaseRoute, Route

from arena_api.openapi import document_bytes
from arena_api.routes._request import services_of

__all__ = ["routes"]


async def openapi(request: Request) -> Response:
    return Response(document_bytes(services_of(request).version), media_type="application/json")


routes: list[BaseRoute] = [Route("/openapi.json", openapi, methods=["GET"], name="openapi")]
