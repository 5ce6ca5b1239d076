"""``ARENA_RATE_LIMIT`` on the routes that start rounds, take votes and ask the judge, per client
address (or API token).

The address is the ASGI scope's client, which ``ForwardedHeaders`` (in front) has set to the
forwarded one when the peer is a trusted proxy. The limiter itself is the process's one
(``Services.limiter``), which the Reflex UI asks too, so a page and a script share a budget.
"""

from __future__ import annotations

from starlette.types import ASGIApp, Receive, Scope, Send

from arena_api.core.ratelimit import refusal_message
from arena_api.routes._request import opened_services
from arena_api.routes.errors import error_response

__all__ = ["GROUPS", "JUDGE_ROUTE", "RateLimits", "limited_route"]

#: (method, path) -> the budget it counts against.
GROUPS = {
    ("POST", "/api/arena/chat"): "chat",
    ("POST", "/v1/chat/completions"): "chat",
    ("POST", "/chat/completions"): "chat",
    ("POST", "/api/arena/vote"): "vote",
}


_JUDGE = ("/api/arena/matchups/", "/judge")
#: The route template of the judge route, for counting its refusals by route.
JUDGE_ROUTE = "/api/arena/matchups/{matchup_id}/judge"


def limited_route(method: str, path: str) -> tuple[str, str] | None:
    """(budget, route template) of a request the rate limit counts; None for the others."""
    group = GROUPS.get((method, path))
    if group is not None:
        return group, path
    if method == "POST" and path.startswith(_JUDGE[0]) and path.endswith(_JUDGE[1]):
        return "judge", JUDGE_ROUTE
    return None


class RateLimits:
    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        limited = (
            limited_route(scope.get("method", ""), scope.get("path", ""))
            if scope["type"] == "http"
            else None
        )
        group = limited[0] if limited else None
        services = opened_services(scope["app"]) if group else None
        if group is None or services is None or not services.limiter.enabled:
            await self.app(scope, receive, send)
            return
        # A request that carried an API token counts against that token, not its address.
        client = scope.get("arena.client") or (scope["client"][0] if scope.get("client") else "")
        refusal = await services.limiter.check(group, client)
        if refusal is None:
            await self.app(scope, receive, send)
            return
        services.metrics.rate_limited.labels(group).inc()
        response = error_response(
            429,
            "rate_limited",
            refusal_message(refusal.retry_after_s),
            {"limit": [str(refusal.limit)]},
        )
        response.headers["retry-after"] = str(refusal.retry_after_s)
        await response(scope, receive, send)
