"""Who may reach what: API tokens for scripts, the passphrase session for browsers.

``ARENA_API_TOKENS`` guards the API (``/api/*``, ``/v1/*``, ``/models``, ``/chat/completions``):
``Authorization: Bearer <token>`` or ``X-API-Token`` (a browser's WebSocket, which cannot set
headers, may pass ``?api_token=``), compared in constant time against every token. A request
with a right token passes, needs no CSRF token, and is counted against the rate limit by its
token rather than its address; a wrong token is refused, never tried as a cookie.

``ARENA_PASSPHRASE`` or sign-in with OpenID Connect (``ARENA_OIDC_ISSUER``) guards everything
else too: the UI's pages and files, Reflex's event
socket (``/_event``), uploads and the live feeds (``/_arena/live``) need the signed session
cookie the login page (``/login``) sets. A page without one is redirected there; anything else
is refused. An API request with no token may use the session instead; then a request that can
change state (any method but GET, HEAD, OPTIONS) must bring the session's CSRF token twice, in
the ``arena_csrf`` cookie and the ``X-CSRF-Token`` header.

Always open: ``/health``, ``/openapi.json``, the login and logout pages, the sign-in's
``/auth/oidc/start`` and ``/auth/oidc/callback``, Reflex's ``/ping`` and ``/_health``;
``/metrics`` and ``/_arena/drain`` check their own tokens. With ``ARENA_OIDC_ANONYMOUS`` a
request without a session passes too, as in an open arena, except to the admin and review
routes.

A refusal is a JSON 401 (``unauthorized``: no credentials; ``invalid_api_token``;
``login_required``: no live session) or 403 (``csrf_failed``); an AG-UI chat request gets it
in-band, like any failure before its stream; a WebSocket is refused at its handshake (403).
"""

from __future__ import annotations

import hashlib
import hmac
from urllib.parse import parse_qs, quote

from starlette.requests import Request
from starlette.responses import RedirectResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena_api.core.errors import ArenaError
from arena_api.core.sessions import SESSION_COOKIE, cookie_values
from arena_api.core.users import Grant, allows, required_role
from arena_api.routes._request import opened_services
from arena_api.routes.chat import in_band_failure, select
from arena_api.routes.errors import error_response
from arena_api.services.access import AccessService

__all__ = [
    "CLIENT_KEY",
    "CSRF_COOKIE",
    "GRANT_KEY",
    "CSRF_HEADER",
    "LOGIN_PATH",
    "LOGOUT_PATH",
    "OIDC_CALLBACK_PATH",
    "OIDC_START_PATH",
    "SESSION_COOKIE",
    "grant_of",
    "AccessControl",
    "read_cookies",
]

#: Where an authenticated request's rate-limit identity is left in the ASGI scope.
CLIENT_KEY = "arena.client"
#: Where what an authenticated request may do (``core.users.Grant``) is left in the ASGI scope.
GRANT_KEY = "arena.grant"
CSRF_COOKIE = "arena_csrf"
CSRF_HEADER = b"x-csrf-token"
LOGIN_PATH = "/login"
LOGOUT_PATH = "/logout"
OIDC_START_PATH = "/auth/oidc/start"
OIDC_CALLBACK_PATH = "/auth/oidc/callback"

_API = ("/api/", "/v1/", "/models", "/chat/completions", "/completions", "/embeddings")
_OPEN = frozenset(
    {"/health", "/openapi.json", "/metrics", "/_arena/drain", LOGIN_PATH, LOGOUT_PATH}
    | {OIDC_START_PATH, OIDC_CALLBACK_PATH}
    | {"/ping", "/_health", "/favicon.ico"}
)
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
#: Paths only an ``ARENA_API_TOKENS`` token opens, whatever else is configured: the open vote
#: data (sessions are anonymised, but the text people typed is theirs).
_TOKEN_ONLY = frozenset({"/api/arena/export"})


def _offered_token(scope: Scope, headers: dict[bytes, bytes]) -> bytes | None:
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


def grant_of(request: Request) -> Grant:
    """What the edge let this request do (``GRANT_KEY``).

    Raises:
        ArenaError: 401 ``login_required``: the edge passed it without one (an open arena, or
            an anonymous voter), so no one is signed in.
    """
    grant = request.scope.get(GRANT_KEY)
    if not isinstance(grant, Grant):
        raise ArenaError("Sign in first", status=401, code="login_required")
    return grant


def read_cookies(headers: dict[bytes, bytes]) -> dict[str, str]:
    """The request's cookies by name (``core.sessions.cookie_values``)."""
    return cookie_values(headers.get(b"cookie", b""))


def _login_redirect(scope: Scope) -> Response:
    target = scope.get("path", "/")
    if scope.get("query_string"):
        target += "?" + scope["query_string"].decode("latin-1")
    return RedirectResponse(f"{LOGIN_PATH}?next={quote(target, safe='')}", status_code=303)


class AccessControl:
    def __init__(
        self,
        app: ASGIApp,
        tokens: tuple[bytes, ...] = (),
        sessions: bool = False,
        users: bool = False,
        anonymous: bool = False,
    ) -> None:
        """``users``: people sign in with OpenID Connect, so their API tokens are honoured;
        ``anonymous``: those who do not sign in may still play and vote."""
        self.app = app
        self.tokens = tokens
        self.sessions = sessions
        self.users = users
        self.anonymous = anonymous

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if path in _TOKEN_ONLY and not (self.tokens or self.users):
            await self._refuse(scope, receive, send, 403, "api_token_required")
            return
        if scope["type"] not in ("http", "websocket") or path in _OPEN:
            await self.app(scope, receive, send)
            return
        if not (self.tokens or self.sessions):
            if required_role(path) is not None:  # an open arena has no one to trust with these
                await self._refuse(scope, receive, send, 403, "access_not_configured")
            else:
                await self.app(scope, receive, send)
            return
        method = scope.get("method", "GET")
        is_api = path.startswith(_API)
        headers: dict[bytes, bytes] = dict(scope["headers"])
        offered = _offered_token(scope, headers) if is_api and (self.tokens or self.users) else None
        if offered is not None:
            digest = hashlib.sha256(offered).hexdigest()[:16]
            grant: Grant | None = None
            if any(hmac.compare_digest(offered, token) for token in self.tokens):
                grant = Grant(None, "admin", label=f"api-token:{digest}")
            elif self.users:
                services = opened_services(scope["app"])
                if services is None or services.users is None:
                    await self._refuse(scope, receive, send, 503, "starting")
                    return
                grant = await services.users.token_grant(offered)
            if grant is None:
                await self._refuse(scope, receive, send, 401, "invalid_api_token")
                return
            refusal = allows(grant, method, path)
            if refusal is None and path in _TOKEN_ONLY and grant.user_id is not None:
                refusal = None if "admin" in grant.scopes else "insufficient_scope"
            if refusal is not None:
                await self._refuse(scope, receive, send, 403, refusal)
                return
            await self.app(
                {**scope, CLIENT_KEY: f"token:{digest}", GRANT_KEY: grant}, receive, send
            )
            return
        if not self.sessions:
            if is_api:
                await self._refuse(scope, receive, send, 401, "unauthorized")
            else:
                await self.app(scope, receive, send)
            return
        services = opened_services(scope["app"])
        if services is None:  # still starting: nothing can be checked yet, so nothing passes
            await self._refuse(scope, receive, send, 503, "starting")
            return
        access: AccessService = services.access
        cookies = read_cookies(headers)
        session = access.session(cookies.get(SESSION_COOKIE))
        if session is None and self.anonymous and path not in _TOKEN_ONLY:
            if required_role(path) is None:  # an anonymous voter, as in an open arena
                await self.app(scope, receive, send)
                return
        if session is None:
            if not is_api and scope["type"] == "http" and _wants_page(scope, headers):
                await _login_redirect(scope)(scope, receive, send)
                return
            code = "unauthorized" if is_api and self.tokens else "login_required"
            await self._refuse(scope, receive, send, 401, code)
            return
        if scope["type"] == "http" and method not in _SAFE_METHODS:
            header = headers.get(CSRF_HEADER, b"").decode("latin-1") or None
            if not access.csrf_matches(session, header, cookies.get(CSRF_COOKIE)):
                await self._refuse(scope, receive, send, 403, "csrf_failed")
                return
        if path in _TOKEN_ONLY:  # a person signed in, but without a token
            await self._refuse(scope, receive, send, 403, "api_token_required")
            return
        grant = Grant(session.user_id, session.role)  # type: ignore[arg-type]
        if required_role(path) is not None and services.users is not None:
            # The role held now, not the cookie's (a user who is gone has none).
            grant = await services.users.session_grant(session) or Grant(None, None)
        refusal = allows(grant, method, path)
        if refusal is not None:
            await self._refuse(scope, receive, send, 403, refusal)
            return
        if scope["type"] == "http" and _wants_page(scope, headers):
            send = _revalidated(send)
        await self.app({**scope, GRANT_KEY: grant}, receive, send)

    async def _refuse(
        self, scope: Scope, receive: Receive, send: Send, status: int, code: str
    ) -> None:
        error = ArenaError(_MESSAGES[code], status=status, code=code)
        if scope["type"] == "websocket":
            # A socket refused before it is accepted gets the HTTP answer with the JSON error
            # where the server can send one (the WebSocket denial response), so a client learns
            # the code; else a close, which the server answers with a bare 403.
            if "websocket.http.response" not in scope.get("extensions", {}):
                await send({"type": "websocket.close", "code": 1008})
                return
        elif scope.get("path") == "/api/arena/chat":
            request = Request(scope, receive)
            adapter = select(
                request.query_params.get("protocol"), request.headers.get("accept")
            ).new_adapter()
            if adapter.in_band_errors:
                await in_band_failure(adapter, error)(scope, receive, send)
                return
        response = error_response(error.status, error.code, error.message)
        if status == 401:
            response.headers["www-authenticate"] = (
                "Bearer" if self.tokens else 'Session realm="arena"'
            )
        await response(scope, receive, send)


_MESSAGES = {
    "unauthorized": "An API token is required",
    "invalid_api_token": "The API token is not valid",
    "login_required": f"Sign in first (at {LOGIN_PATH})",
    "starting": "The server is starting; try again shortly",
    "api_token_required": "The vote data is exported to API token holders only (ARENA_API_TOKENS)",
    "csrf_failed": "The X-CSRF-Token header must carry this session's CSRF token "
    "(the arena_csrf cookie)",
    "forbidden_role": "Your role does not allow this (the admin routes need an admin, the "
    "review routes a reviewer)",
    "insufficient_scope": "This API token's scopes do not allow this (read: safe methods; "
    "vote: all but the admin routes; admin: everything its owner may do)",
    "access_not_configured": "The admin and review routes need ARENA_API_TOKENS or single "
    "sign-on (ARENA_OIDC_ISSUER)",
}


def _revalidated(send: Send) -> Send:
    """A private page is never shown from the browser's cache without asking (after signing
    out, the browser would otherwise show the cached page, heuristically fresh, unasked)."""

    async def sending(message: Message) -> None:
        if message["type"] == "http.response.start":
            headers = [(k, v) for k, v in message.get("headers", []) if k != b"cache-control"]
            headers.append((b"cache-control", b"private, no-cache"))
            message = {**message, "headers": headers}
        await send(message)

    return sending


def _wants_page(scope: Scope, headers: dict[bytes, bytes]) -> bool:
    """A browser navigating to a page (not a script, not a file a page loads)."""
    return scope["method"] in ("GET", "HEAD") and b"text/html" in headers.get(b"accept", b"")
