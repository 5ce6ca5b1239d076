"""Behind a reverse proxy: believe ``X-Forwarded-For``, ``-Proto`` and ``-Host`` from it only.

With ``ARENA_TRUST_PROXY`` naming the proxy (or ``1`` for any peer), a request that comes from a
trusted peer is seen as the browser made it: its client address is the first address in
``X-Forwarded-For`` (read from the right) that is not itself a trusted proxy, its scheme is
``X-Forwarded-Proto``'s (``wss`` for a WebSocket over https), and its ``Host`` is
``X-Forwarded-Host``'s, so the backend address the page is told (``BackendUrlRewrite``) is the
one the browser used. From any other peer the headers are ignored: a client cannot claim
another address or scheme by sending them itself.
"""

from __future__ import annotations

from ipaddress import IPv4Network, IPv6Network, ip_address

from starlette.types import ASGIApp, Receive, Scope, Send

__all__ = ["ForwardedHeaders", "TrustedProxies"]

TrustedProxies = tuple[IPv4Network | IPv6Network, ...] | str  # "*": any peer

_SCHEMES = {
    "http": {"http": "http", "https": "https"},
    "websocket": {"http": "ws", "https": "wss"},
}


class ForwardedHeaders:
    def __init__(self, app: ASGIApp, trusted: TrustedProxies = ()) -> None:
        self.app = app
        self.trusted = trusted

    def _is_trusted(self, host: str | None) -> bool:
        if self.trusted == "*":
            return True
        if not self.trusted or host is None:
            return False
        try:
            address = ip_address(host)
        except ValueError:
            return False
        return any(address in network for network in self.trusted)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in _SCHEMES or not self.trusted:
            await self.app(scope, receive, send)
            return
        client = scope.get("client")
        if not self._is_trusted(client[0] if client else None):
            await self.app(scope, receive, send)
            return
        headers = dict(scope["headers"])
        scope = dict(scope)
        proto = headers.get(b"x-forwarded-proto", b"").decode("latin-1").split(",")[0].strip()
        scheme = _SCHEMES[scope["type"]].get(proto.lower())
        if scheme:
            scope["scheme"] = scheme
        forwarded_for = headers.get(b"x-forwarded-for", b"").decode("latin-1")
        hops = [hop.strip() for hop in forwarded_for.split(",") if hop.strip()]
        if hops:
            # The nearest hop that is not one of ours is the client; all ours: the farthest.
            origin = next((hop for hop in reversed(hops) if not self._is_trusted(hop)), hops[0])
            scope["client"] = (origin, 0)
        forwarded_host = headers.get(b"x-forwarded-host", b"").split(b",")[0].strip()
        if forwarded_host:
            kept = [(name, value) for name, value in scope["headers"] if name != b"host"]
            scope["headers"] = [*kept, (b"host", forwarded_host)]
        await self.app(scope, receive, send)
