"""The error shape of every API response, and the JSON 404 for unmatched API paths.

Every error body is ``{"error": "<message>", "code": "<machine-readable reason>"}`` (the seed
system's ``{"error": ...}`` plus a ``code``), so clients can branch without parsing prose. Its
shape is ``arena_api.core.responses.ErrorBody``, the schema the OpenAPI document shows.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from starlette.exceptions import HTTPException
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import BaseRoute, Match, Route

from arena_api.core.errors import ArenaError
from arena_api.core.responses import ErrorBody

__all__ = ["API_PREFIXES", "error_response", "exception_handlers", "routes"]

# Paths that belong to the API: an unmatched request there is a JSON 404, never the UI's HTML.
API_PREFIXES: tuple[str, ...] = (
    "/api",
    "/health",
    "/v1",
    "/models",
    "/chat/completions",
    "/completions",
    "/embeddings",
)

_CODES = {400: "invalid_request", 404: "not_found", 405: "method_not_allowed", 413: "too_large"}


def error_response(
    status: int, code: str, message: str, details: Mapping[str, Any] | None = None
) -> JSONResponse:
    body = ErrorBody(error=message, code=code)
    if details is not None:
        body["details"] = dict(details)
    return JSONResponse(body, status_code=status)


async def _arena_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, ArenaError)
    response = error_response(exc.status, exc.code, exc.message, exc.details)
    if exc.retry_after_s is not None:
        response.headers["retry-after"] = str(exc.retry_after_s)
    return response


async def _http_error(request: Request, exc: Exception) -> Response:
    assert isinstance(exc, HTTPException)
    code = _CODES.get(exc.status_code, "http_error")
    response = error_response(exc.status_code, code, str(exc.detail))
    response.headers.update(exc.headers or {})
    return response


async def not_found(request: Request) -> Response:
    """The catch-all under the API prefixes: 405 when a real route has the path, else 404."""
    allowed: set[str] = set()
    for route in request.app.router.routes:
        if isinstance(route, Route) and route.endpoint is not not_found:
            match, _ = route.matches(request.scope)
            if match is Match.PARTIAL and route.methods:
                allowed |= route.methods
    if allowed:
        response = error_response(
            405, "method_not_allowed", f"{request.method} is not allowed on {request.url.path}"
        )
        response.headers["allow"] = ", ".join(sorted(allowed))
        return response
    return error_response(404, "not_found", f"no route for {request.method} {request.url.path}")


exception_handlers = {ArenaError: _arena_error, HTTPException: _http_error}

_ALL = ["GET", "HEAD", "POST", "PUT", "PATCH", "DELETE", "OPTIONS"]

routes: list[BaseRoute] = [
    route
    for prefix in API_PREFIXES
    for route in (
        Route(prefix, not_found, methods=_ALL, name=f"not_found:{prefix}"),
        Route(prefix + "/{rest:path}", not_found, methods=_ALL, name=f"not_found:{prefix}/*"),
    )
]
