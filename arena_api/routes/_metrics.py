"""Counts every API request by its route (the template, never the raw path) and status."""

from __future__ import annotations

from collections.abc import Awaitable

from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena_api.routes._ratelimit import limited_route
from arena_api.routes._request import opened_services

__all__ = ["RequestMetrics"]


class RequestMetrics:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        services = opened_services(scope["app"])
        if scope["type"] != "http" or services is None:
            await self.app(scope, receive, send)
            return
        status = 500

        # Not a coroutine: the message is handed on with no step of ours per write.
        def sending(message: Message) -> Awaitable[None]:
            nonlocal status
            if message["type"] == "http.response.start":
                status = message["status"]
            return send(message)

        try:
            await self.app(scope, receive, sending)
        finally:
            path = getattr(scope.get("route"), "path", None)
            limited = limited_route(scope.get("method", ""), scope.get("path", ""))
            if path is None and limited is not None:
                path = limited[1]  # refused by the rate limit before it was routed
            if path is not None:  # an API route; the UI's files and Reflex's are not counted
                services.metrics.requests.labels(path, str(status)).inc()
