"""Signing in: the passphrase (``ARENA_PASSPHRASE``), OpenID Connect (``ARENA_OIDC_ISSUER``),
``/login``, ``/logout`` and ``GET /api/me``.

``GET /login`` is a small page of its own (no Reflex: it must work before the UI may load);
``POST /login`` takes the passphrase as a form field (the page) or JSON (``{"passphrase": ...}``,
answered with the CSRF token a script needs). A right passphrase sets the session cookie
(HttpOnly) and the CSRF cookie (readable by the page's scripts), both ``SameSite=Lax``, ``Secure``
when the browser came over https (directly or through a trusted proxy), for the session's
lifetime. ``/logout`` asks, then (with the CSRF token in the form) clears both.

With OpenID Connect the page offers the provider: ``/auth/oidc/start`` sends the browser there
with the flow sealed in a cookie scoped to ``/auth/oidc`` (``services.identity``), and
``/auth/oidc/callback`` opens the user's session and goes where the browser was headed. A
refused sign-in shows the login page again with the reason (its status and code in
``data-code``). ``GET /api/me`` says who the session is.
"""

from __future__ import annotations

import html
from datetime import UTC, datetime
from urllib.parse import parse_qs, urlencode

from starlette.requests import Request
from starlette.responses import HTMLResponse, JSONResponse, RedirectResponse, Response
from starlette.routing import BaseRoute, Route

from arena_api.core.errors import ArenaError
from arena_api.core.oidc import FLOW_TTL_S
from arena_api.routes._access import (
    CSRF_COOKIE,
    LOGIN_PATH,
    LOGOUT_PATH,
    OIDC_CALLBACK_PATH,
    OIDC_START_PATH,
    SESSION_COOKIE,
    read_cookies,
)
from arena_api.routes._request import read_object, services_of
from arena_api.routes.errors import error_response
from arena_api.services.access import AccessService, SignedIn
from arena_api.services.identity import IdentityService

__all__ = ["routes"]

_MAX_FORM_BYTES = 8 * 1024
_FLOW_COOKIE = "arena_oidc_flow"
_FLOW_PATH = "/auth/oidc"
_CALLBACK_PARAMS = frozenset({"code", "state", "error", "error_description", "iss"})
_NO_STORE = {"cache-control": "no-store"}

_PAGE = """<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<meta name="robots" content="noindex">
<title>{title} · Arena</title>
<link rel="icon" href="/favicon.ico">
<style>
  :root {{ color-scheme: light dark; --bg: #f7f7f8; --card: #fff; --fg: #1c2024;
          --muted: #60646c; --line: #d9d9e0; --accent: #3e63dd; --bad: #ce2c31; }}
  @media (prefers-color-scheme: dark) {{
    :root {{ --bg: #111113; --card: #18191b; --fg: #edeef0; --muted: #b0b4ba;
            --line: #363a3f; --accent: #7b9bff; --bad: #ff9592; }}
  }}
  * {{ box-sizing: border-box; }}
  body {{ margin: 0; min-height: 100vh; display: grid; place-items: center; padding: 1rem;
         background: var(--bg); color: var(--fg);
         font: 16px/1.5 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; }}
  main {{ width: 100%; max-width: 24rem; background: var(--card); border: 1px solid var(--line);
         border-radius: 12px; padding: 2rem 1.75rem; }}
  h1 {{ margin: 0 0 .25rem; font-size: 1.5rem; }}
  p {{ margin: 0 0 1.25rem; color: var(--muted); }}
  label {{ display: block; font-weight: 600; margin-bottom: .375rem; }}
  input[type=password] {{ width: 100%; padding: .625rem .75rem; font: inherit; color: inherit;
         background: transparent; border: 1px solid var(--line); border-radius: 8px; }}
  input:focus-visible, button:focus-visible {{ outline: 2px solid var(--accent);
         outline-offset: 2px; }}
  button {{ margin-top: 1rem; width: 100%; padding: .625rem; font: inherit; font-weight: 600;
           color: #fff; background: #3e63dd; border: 0; border-radius: 8px; cursor: pointer; }}
  .error {{ color: var(--bad); margin: .75rem 0 0; }}
  a.sso {{ display: block; text-align: center; text-decoration: none; padding: .625rem;
          font-weight: 600; color: #fff; background: #3e63dd; border-radius: 8px; }}
  .or {{ text-align: center; margin: 1rem 0 0; }}
</style>
</head>
<body>
<main>
<h1>Arena</h1>
{content}
</main>
</body>
</html>
"""

_LOGIN_INTRO = "<p>This arena is private. {how}</p>"
_SSO_LINK = '<a class="sso" href="{href}">Sign in with {provider}</a>'
_LOGIN_FORM = """<form method="post" action="{action}">
<label for="passphrase">Passphrase</label>
<input id="passphrase" name="passphrase" type="password" autocomplete="current-password"
       required autofocus{invalid}>
<input type="hidden" name="next" value="{next}">
<button type="submit">Sign in</button>
</form>"""
_ERROR = '<p class="error" id="login-error" role="alert" data-code="{code}">{message}</p>'


_LOGOUT_FORM = """<p>Sign out of this arena on this browser?</p>
<form method="post" action="{action}">
<input type="hidden" name="csrf_token" value="{csrf}">
<button type="submit">Sign out</button>
</form>"""


def _safe_next(raw: str | None) -> str:
    """Where to go after signing in: a path on this site only (never ``//host`` or a URL)."""
    if not raw or not raw.startswith("/") or raw.startswith(("//", "/\\")):
        return "/"
    if raw.split("?")[0] in (LOGIN_PATH, LOGOUT_PATH) or any(ord(c) < 32 for c in raw):
        return "/"
    return raw


def _page(title: str, content: str, status: int = 200) -> HTMLResponse:
    return HTMLResponse(
        _PAGE.format(title=title, content=content), status_code=status, headers=_NO_STORE
    )


def _login_page(
    request: Request,
    next_path: str,
    error: ArenaError | None = None,
) -> HTMLResponse:
    identity = _identity(request)
    passphrase = _access(request).has_passphrase
    parts = []
    if identity is not None:
        how = "Sign in with your organisation's account" + (
            ", or enter the passphrase." if passphrase else "."
        )
    else:
        how = "Enter the passphrase to continue."
    parts.append(_LOGIN_INTRO.format(how=how))
    if identity is not None:
        href = OIDC_START_PATH + "?" + urlencode({"next": next_path})
        provider = html.escape(identity.provider_name)
        parts.append(_SSO_LINK.format(href=html.escape(href), provider=provider))
    if passphrase:
        if identity is not None:
            parts.append('<p class="or">or</p>')
        parts.append(
            _LOGIN_FORM.format(
                action=html.escape(LOGIN_PATH + "?" + urlencode({"next": next_path})),
                next=html.escape(next_path),
                invalid=' aria-invalid="true" aria-describedby="login-error"' if error else "",
            )
        )
    if error is not None:
        parts.append(
            _ERROR.format(code=html.escape(error.code), message=html.escape(error.message))
        )
    page = _page("Sign in", "\n".join(parts), error.status if error else 200)
    if error is not None and error.retry_after_s is not None:
        page.headers["retry-after"] = str(error.retry_after_s)
    return page


def _identity(request: Request) -> IdentityService | None:
    return services_of(request).identity


def _access(request: Request) -> AccessService:
    return services_of(request).access


async def _read_form(request: Request) -> dict[str, str]:
    """The fields of a form post or a JSON object, as strings.

    Raises:
        InvalidRequest: the body is neither, or too large.
    """
    if "json" in request.headers.get("content-type", ""):
        body = await read_object(request, max_bytes=_MAX_FORM_BYTES)
        return {k: v for k, v in body.items() if isinstance(v, str)}
    raw = b""
    async for chunk in request.stream():
        raw += chunk
        if len(raw) > _MAX_FORM_BYTES:
            raise ArenaError("The form is too large", status=413, code="too_large")
    fields = parse_qs(raw.decode("utf-8", "replace"), keep_blank_values=True)
    return {name: values[0] for name, values in fields.items()}


def _set_cookies(response: Response, request: Request, signed: SignedIn, ttl_s: int) -> None:
    secure = request.url.scheme in ("https", "wss")
    common = {"max_age": ttl_s, "path": "/", "samesite": "lax", "secure": secure}
    response.set_cookie(SESSION_COOKIE, signed.cookie, httponly=True, **common)  # type: ignore[arg-type]
    response.set_cookie(CSRF_COOKIE, signed.csrf_token, httponly=False, **common)  # type: ignore[arg-type]


async def login_page(request: Request) -> Response:
    access = _access(request)
    next_path = _safe_next(request.query_params.get("next"))
    if not access.enabled or access.session(
        read_cookies(dict(request.headers.raw)).get(SESSION_COOKIE)
    ):
        return RedirectResponse(next_path, status_code=303)
    return _login_page(request, next_path)


async def sign_in(request: Request) -> Response:
    access = _access(request)
    wants_json = "json" in request.headers.get("content-type", "")
    if not access.has_passphrase:
        return error_response(404, "not_found", "This arena has no passphrase")
    fields = await _read_form(request)
    next_path = _safe_next(fields.get("next") or request.query_params.get("next"))
    client = request.client.host if request.client else ""
    try:
        signed = await access.sign_in(fields.get("passphrase", ""), client)
    except ArenaError as exc:
        if wants_json:
            raise
        return _login_page(request, next_path, exc)
    if wants_json:
        expires = datetime.fromtimestamp(signed.session.expires_at, UTC)
        response: Response = JSONResponse(
            {"ok": True, "csrfToken": signed.csrf_token, "expiresAt": expires.isoformat()},
            headers=_NO_STORE,
        )
    else:
        response = RedirectResponse(next_path, status_code=303)
    _set_cookies(response, request, signed, access.ttl_s)
    return response


async def logout_page(request: Request) -> Response:
    access = _access(request)
    session = access.session(read_cookies(dict(request.headers.raw)).get(SESSION_COOKIE))
    if session is None:
        return RedirectResponse(LOGIN_PATH, status_code=303)
    content = _LOGOUT_FORM.format(action=LOGOUT_PATH, csrf=html.escape(access.csrf_token(session)))
    return _page("Sign out", content)


async def sign_out(request: Request) -> Response:
    access = _access(request)
    cookies = read_cookies(dict(request.headers.raw))
    session = access.session(cookies.get(SESSION_COOKIE))
    if session is not None:
        offered = request.headers.get("x-csrf-token") or (await _read_form(request)).get(
            "csrf_token"
        )
        if not access.csrf_matches(session, offered, cookies.get(CSRF_COOKIE)):
            return error_response(403, "csrf_failed", "The sign-out form lacks its CSRF token")
    identity = _identity(request)
    if session is not None and session.user_id is not None and identity is not None:
        await identity.signed_out(session.user_id)
    response = RedirectResponse(LOGIN_PATH, status_code=303)
    for name in (SESSION_COOKIE, CSRF_COOKIE):
        response.delete_cookie(name, path="/", samesite="lax")
    return response


def _callback_url(request: Request) -> str:
    return str(request.url.replace(path=OIDC_CALLBACK_PATH, query="", fragment=""))


async def oidc_start(request: Request) -> Response:
    identity = _identity(request)
    if identity is None:
        return error_response(404, "not_found", "This arena has no single sign-on")
    next_path = _safe_next(request.query_params.get("next"))
    try:
        url, sealed = await identity.start(next_path, _callback_url(request))
    except ArenaError as exc:
        return _login_page(request, next_path, exc)
    response = RedirectResponse(url, status_code=303, headers=_NO_STORE)
    response.set_cookie(
        _FLOW_COOKIE,
        sealed,
        max_age=FLOW_TTL_S,
        path=_FLOW_PATH,
        httponly=True,
        samesite="lax",  # the provider sends the browser back with a top-level GET
        secure=request.url.scheme == "https",
    )
    return response


async def oidc_callback(request: Request) -> Response:
    identity = _identity(request)
    if identity is None:
        return error_response(404, "not_found", "This arena has no single sign-on")
    sealed = read_cookies(dict(request.headers.raw)).get(_FLOW_COOKIE)
    params = {k: v for k, v in request.query_params.items() if k in _CALLBACK_PARAMS}
    try:
        signed, _, next_path = await identity.finish(params, sealed, _callback_url(request))
    except ArenaError as exc:
        page = _login_page(request, "/", exc)
        page.delete_cookie(_FLOW_COOKIE, path=_FLOW_PATH)
        return page
    response = RedirectResponse(next_path, status_code=303, headers=_NO_STORE)
    _set_cookies(response, request, signed, _access(request).ttl_s)
    response.delete_cookie(_FLOW_COOKIE, path=_FLOW_PATH)
    return response


async def me(request: Request) -> Response:
    """Who this request is: a signed-in user, a passphrase session, or a token."""
    access = _access(request)
    session = access.session(read_cookies(dict(request.headers.raw)).get(SESSION_COOKIE))
    identity = _identity(request)
    user = None
    if session is not None and session.user_id is not None and identity is not None:
        found = await identity.user(session.user_id)
        if found is not None:
            user = {"id": found.id, "email": found.email, "name": found.name, "role": found.role}
    return JSONResponse({"signedIn": session is not None, "user": user}, headers=_NO_STORE)


routes: list[BaseRoute] = [
    Route(LOGIN_PATH, login_page, methods=["GET", "HEAD"], name="login_page"),
    Route(LOGIN_PATH, sign_in, methods=["POST"], name="sign_in"),
    Route(LOGOUT_PATH, logout_page, methods=["GET", "HEAD"], name="logout_page"),
    Route(LOGOUT_PATH, sign_out, methods=["POST"], name="sign_out"),
    Route(OIDC_START_PATH, oidc_start, methods=["GET"], name="oidc_start"),
    Route(OIDC_CALLBACK_PATH, oidc_callback, methods=["GET"], name="oidc_callback"),
    Route("/api/me", me, methods=["GET"], name="me"),
]
