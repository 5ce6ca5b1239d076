"""Serve the built UI's backend address as the address the browser actually used.

Reflex bakes ``http://localhost:<port>`` into one small chunk of the built UI
(``assets/reflex-env-<hash>.js``), and the browser keeps that port on plain http. A build would
then only work on the port it was built for: not behind a container's port mapping, not on a
test's free port. This middleware answers that one chunk with the port taken from the request's
``Host`` header, so one build serves any port. ``localhost`` is kept as the host name on purpose:
the browser swaps it for the page's own host name (and upgrades to wss on https).
"""

from __future__ import annotations

import re
from pathlib import Path

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["BackendUrlRewrite"]

_CHUNK = re.compile(r"^/assets/reflex-env-[A-Za-z0-9_-]+\.js$")
_BAKED = re.compile(rb"(wss?|https?)://localhost(:\d+)?(?=/)")


def _port_of(host: bytes) -> bytes:
    """The port of a ``Host`` header value (``b""`` when it names none)."""
    tail = host.rpartition(b"]")[2] if host.startswith(b"[") else host
    _, sep, port = tail.rpartition(b":")
    return port if sep and port.isdigit() else b""


class BackendUrlRewrite:
    def __init__(self, app: ASGIApp, build_dir: Path | None = None) -> None:
        self.app = app
        self.build_dir = build_dir or Path.cwd() / ".web" / "build" / "client"

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        path = scope.get("path", "")
        if scope["type"] != "http" or not _CHUNK.match(path):
            await self.app(scope, receive, send)
            return
        file = self.build_dir / path.lstrip("/")
        if not file.is_file():
            await self.app(scope, receive, send)
            return
        port = _port_of(dict(scope["headers"]).get(b"host", b""))
        suffix = b":" + port if port else b""
        body = _BAKED.sub(lambda m: m.group(1) + b"://localhost" + suffix, file.read_bytes())
        await send(
            {
                "type": "http.response.start",
                "status": 200,
                "headers": [
                    (b"content-type", b"text/javascript; charset=utf-8"),
                    (b"content-length", str(len(body)).encode()),
                    (b"cache-control", b"no-store"),
                ],
            }
        )
        await send({"type": "http.response.body", "body": body})
