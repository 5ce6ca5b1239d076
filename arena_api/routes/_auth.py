"""``ARENA_API_TOKENS``: the HTTP API answers only requests that carry one of the tokens.

``Authorization: Bearer <token>`` or ``X-API-Token: <token>`` (a browser's WebSocket, which
cannot set headers, may pass ``?api_token=``). Compared in constant time against every token.
``/health`` stays open and ``/metrics`` has its own token. A refusal is a JSON 401 with a
``code`` (``unauthorized`` when no token came, ``invalid_api_token`` when a wrong one did); an
AG-UI chat request gets it in-band, like any failure before its stream; a WebSocket is refused
at its handshake (403). A request that passed is counted against the rate limit by its token,
not its address.
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs

from starlette.requests import Request
from starlette.types import ASGIApp, Receive, Scope, Send

from arena_api.core.errors import ArenaError
from arena_api.routes.chat import in_band_failure, select
from arena_api.routes.errors import error_response

__all__ = ["CLIENT_KEY", "ApiTokens"]

#: Where an authenticated request's rate-limit identity is left in the ASGI scope.
CLIENT_KEY = "arena.client"
_GUARDED = ("/api/", "/v1/", "/models", "/chat/completions", "/completions", "/embeddings")


def _offered(scope: Scope) -> bytes | None:
    headers: dict[bytes, bytes] = dict(scope["headers"])
    authorization = headers.get(b"authorization", b"")
    if authorization[:7].lower() == b"bearer ":
        return authorization[7:].strip()
    if b"x-api-token" in headers:
        return headers[b"x-api-token"].strip()
    if scope["type"] == "websocket":
        query_string: bytes = scope.get("query_string", b"")
        query = parse_qs(query_string.decode("latin-1"))
        if query.get("api_token"):
            return query["api_token"][0].encode()
    return None


class ApiTokens:
    def __init__(self, app: ASGIApp, tokens: tuple[bytes, ...] = ()) -> None:
        self.app = app
        self.tokens = tokens

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if (
            not self.tokens
            or scope["type"] not in ("http", "websocket")
            or not path.startswith(_GUARDED)
        ):
            await self.app(scope, receive, send)
            return
        offered = _offered(scope)
        if offered is not None and any(hmac.compare_digest(offered, t) for t in self.tokens):
            digest = hashlib.sha256(offered).hexdigest()[:16]
            await self.app({**scope, CLIENT_KEY: f"token:{digest}"}, receive, send)
            return
        if scope["type"] == "websocket":
            await send({"type": "websocket.close", "code": 1008})
            return
        error = ArenaError(
            "An API token is required" if offered is None else "The API token is not valid",
            status=401,
            code="unauthorized" if offered is None else "invalid_api_token",
        )
        request = Request(scope, receive)
        protocol = select(request.query_params.get("protocol"), request.headers.get("accept"))
        adapter = protocol.new_adapter()
        if path == "/api/arena/chat" and adapter.in_band_errors:
            response = in_band_failure(adapter, error)
        else:
            response = error_response(error.status, error.code, error.message)
            response.headers["www-authenticate"] = "Bearer"
        await response(scope, receive, send)
