"""The browser boundary: who may call the API from another site (CORS), and what every response
tells the browser about framing, sniffing, referrers and scripts.

CORS is decided here, once, for the API, the UI and its files. By default no other site may
read anything: the UI calls from its own origin and needs no CORS, Open WebUI and the seed
system's example apps call from servers, which CORS does not concern. ``ARENA_CORS_ORIGINS``
lists the origins whose pages may call with the person's cookies (credentialed); ``*`` in it
lets any page read (GET and HEAD only, never with credentials), to embed a leaderboard. A
preflight from an origin that may not call is refused with 403 ``origin_not_allowed``.

Every response carries ``X-Content-Type-Options``, ``Referrer-Policy``, ``Permissions-Policy``,
``Cross-Origin-Opener-Policy``, the framing rule (``frame-ancestors``, and ``X-Frame-Options``
where it can say the same), and ``Strict-Transport-Security`` over https. HTML pages get the
UI's Content-Security-Policy (``ui_policy``); anything else ``default-src 'none'``, so a JSON
answer opened as a page runs nothing.
"""

from __future__ import annotations

import base64
import hashlib
import re
from collections.abc import Awaitable, Iterable
from pathlib import Path

from starlette.datastructures import MutableHeaders
from starlette.responses import Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

from arena_api.routes.errors import error_response

__all__ = ["BrowserBoundary", "credentialed_origins", "inline_script_hashes", "ui_policy"]

_SAFE = frozenset({"GET", "HEAD"})
_METHODS = "GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS"
#: Headers a page on another origin may read from an answer (a round's ids and token ride in
#: ``X-Arena-Matchup``).
_EXPOSED = "X-Arena-Matchup, Retry-After, Content-Disposition"
#: How long a browser may reuse a preflight's answer.
_PREFLIGHT_MAX_AGE_S = "600"
_HSTS = "max-age=31536000; includeSubDomains"
_PERMISSIONS = (
    "camera=(), microphone=(), geolocation=(), payment=(), usb=(), serial=(), bluetooth=(), "
    "browsing-topics=()"
)
_INLINE_SCRIPT = re.compile(rb"<script\b([^>]*)>(.*?)</script\s*>", re.S | re.I)
_SRC = re.compile(rb"\bsrc\s*=", re.I)


def credentialed_origins(listed: Iterable[str]) -> frozenset[str]:
    """The origins ``ARENA_CORS_ORIGINS`` trusts with the person's cookies: every listed one
    (``*`` opens reading to any origin, never credentials). The event socket trusts them too."""
    return frozenset(origin for origin in listed if origin != "*")


def inline_script_hashes(pages: Iterable[bytes]) -> tuple[str, ...]:
    """The CSP hash sources (``'sha256-…'``) of every inline script of ``pages``, sorted."""
    hashes = set()
    for page in pages:
        for attributes, body in _INLINE_SCRIPT.findall(page):
            if body.strip() and not _SRC.search(attributes):
                digest = base64.b64encode(hashlib.sha256(body).digest()).decode()
                hashes.add(f"'sha256-{digest}'")
    return tuple(sorted(hashes))


def ui_policy(script_hashes: Iterable[str], frame_ancestors: str) -> str:
    """The UI's Content-Security-Policy, as strict as Reflex's build allows.

    Scripts: the build's own files and its inline scripts by hash. ``'unsafe-eval'`` stays:
    Reflex runs a script a server event sends (``rx.call_script``, ``rx.set_clipboard``) with
    ``eval``. Styles: ``'unsafe-inline'``, since Radix and Emotion write ``<style>`` elements
    and ``style`` attributes while the page runs. Connections: the page's own origin (its event
    socket and live feeds; ``'self'`` covers ws: and wss: there).
    """
    scripts = " ".join(["'self'", "'unsafe-eval'", *script_hashes])
    return "; ".join(
        [
            "default-src 'self'",
            f"script-src {scripts}",
            "style-src 'self' 'unsafe-inline'",
            "img-src 'self' data: blob:",
            "font-src 'self' data:",
            "connect-src 'self'",
            "object-src 'none'",
            "base-uri 'self'",
            "form-action 'self'",
            f"frame-ancestors {frame_ancestors}",
        ]
    )


class BrowserBoundary:
    """CORS and the security headers; outside everything that answers (access control too, so a
    listed origin can read a 401)."""

    def __init__(
        self,
        app: ASGIApp,
        cors_origins: tuple[str, ...] = (),
        frame_ancestors: tuple[str, ...] = (),
        build_dir: Path | None = None,
    ) -> None:
        self.app = app
        self.credentialed = credentialed_origins(cors_origins)
        self.any_reader = "*" in cors_origins
        self.frame_ancestors = " ".join(frame_ancestors) or "'none'"
        self.frame_options = {"": "DENY", "'self'": "SAMEORIGIN"}.get(
            " ".join(frame_ancestors), None
        )
        self.build_dir = build_dir or Path.cwd() / ".web" / "build" / "client"
        self._ui_policy: str | None = None

    def page_policy(self) -> str:
        """The UI's policy, with the hashes of every built page's inline scripts: a page reached
        by the app's own navigation runs the scripts of the page it came from, under its policy.
        Read once: the build does not change under a running server."""
        if self._ui_policy is None:
            pages = (p.read_bytes() for p in sorted(self.build_dir.rglob("*.html")))
            self._ui_policy = ui_policy(inline_script_hashes(pages), self.frame_ancestors)
        return self._ui_policy

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        origin = headers.get(b"origin", b"").decode("latin-1")
        own = f"{scope['scheme']}://{headers.get(b'host', b'').decode('latin-1')}"
        foreign = bool(origin) and origin.lower() != own.lower()
        preflight = scope["method"] == "OPTIONS" and b"access-control-request-method" in headers
        cors = self._cors(origin, scope["method"]) if foreign and not preflight else {}
        https = scope["scheme"] == "https"

        # Not a coroutine: the message is handed on with no step of ours per write.
        def respond(message: Message) -> Awaitable[None]:
            if message["type"] == "http.response.start":
                out = MutableHeaders(scope=message)
                self._secure(out, https, revalidated=message["status"] == 304)
                for name, value in cors.items():
                    out[name] = value
                if self.credentialed or self.any_reader:
                    out.add_vary_header("Origin")
            return send(message)

        if foreign and preflight:
            await self._preflight(headers, origin)(scope, receive, respond)
        else:
            await self.app(scope, receive, respond)

    def _cors(self, origin: str, method: str) -> dict[str, str]:
        """What an answer to a page of another ``origin`` says about reading it."""
        if origin in self.credentialed:
            return {
                "Access-Control-Allow-Origin": origin,
                "Access-Control-Allow-Credentials": "true",
                "Access-Control-Expose-Headers": _EXPOSED,
            }
        if self.any_reader and method in _SAFE:
            return {"Access-Control-Allow-Origin": "*", "Access-Control-Expose-Headers": _EXPOSED}
        return {}

    def _preflight(self, headers: dict[bytes, bytes], origin: str) -> Response:
        """The answer to a preflight: what the origin may send, or 403 if it may not call."""
        asked = headers[b"access-control-request-method"].decode("latin-1").upper()
        allowed = self._cors(origin, asked)
        if not allowed:
            return error_response(
                403, "origin_not_allowed", f"{origin} may not call this server from a browser"
            )
        del allowed["Access-Control-Expose-Headers"]
        allowed["Access-Control-Allow-Methods"] = (
            _METHODS if "Access-Control-Allow-Credentials" in allowed else "GET, HEAD"
        )
        requested = headers.get(b"access-control-request-headers", b"").decode("latin-1")
        if requested:
            allowed["Access-Control-Allow-Headers"] = requested
        allowed["Access-Control-Max-Age"] = _PREFLIGHT_MAX_AGE_S
        allowed["Vary"] = "Access-Control-Request-Method, Access-Control-Request-Headers"
        return Response(status_code=204, headers=allowed)

    def _secure(self, out: MutableHeaders, https: bool, revalidated: bool) -> None:
        """The security headers. A 304 names no content type, and the browser lays its headers
        over the cached page's: it keeps the policy the page came with."""
        out["X-Content-Type-Options"] = "nosniff"
        out["Referrer-Policy"] = "same-origin"
        out["Permissions-Policy"] = _PERMISSIONS
        out["Cross-Origin-Opener-Policy"] = "same-origin"
        if not revalidated:
            html = out.get("content-type", "").startswith("text/html")
            out["Content-Security-Policy"] = (
                self.page_policy()
                if html
                else f"default-src 'none'; frame-ancestors {self.frame_ancestors}"
            )
        if self.frame_options is not None:
            out["X-Frame-Options"] = self.frame_options
        if https:
            out["Strict-Transport-Security"] = _HSTS
