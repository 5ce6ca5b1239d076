"""Forwarded headers are believed from trusted proxies only, and never let a client pick its
own address."""

from __future__ import annotations

from ipaddress import ip_network
from typing import Any

import pytest

from arena_api.routes._proxy import ForwardedHeaders, TrustedProxies
from arena_api.settings import SettingsError, read_setting, setting_named


async def _seen(trusted: TrustedProxies, peer: str, kind: str = "http", **headers: str) -> Any:
    seen: dict[str, Any] = {}

    async def app(scope: Any, receive: Any, send: Any) -> None:
        seen.update(scope)

    scope = {
        "type": kind,
        "scheme": "http" if kind == "http" else "ws",
        "client": (peer, 50000),
        "headers": [(b"host", b"arena:3001")]
        + [(k.replace("_", "-").encode(), v.encode()) for k, v in headers.items()],
    }
    await ForwardedHeaders(app, trusted)(scope, None, None)  # type: ignore[arg-type]
    return seen["client"][0], seen["scheme"], dict(seen["headers"])[b"host"]


FORWARDED = {
    "x_forwarded_for": "203.0.113.7",
    "x_forwarded_proto": "https",
    "x_forwarded_host": "arena.example.com",
}


async def test_with_no_trusted_proxy_the_headers_are_ignored() -> None:
    assert await _seen((), "127.0.0.1", **FORWARDED) == ("127.0.0.1", "http", b"arena:3001")


async def test_an_untrusted_peer_cannot_claim_another_address_or_scheme() -> None:
    trusted = (ip_network("10.0.0.0/8"),)

    assert await _seen(trusted, "198.51.100.9", **FORWARDED) == (
        "198.51.100.9",
        "http",
        b"arena:3001",
    )


async def test_a_trusted_proxy_is_believed() -> None:
    trusted = (ip_network("127.0.0.1/32"),)

    assert await _seen(trusted, "127.0.0.1", **FORWARDED) == (
        "203.0.113.7",
        "https",
        b"arena.example.com",
    )


async def test_the_client_is_the_nearest_hop_that_is_not_a_trusted_proxy() -> None:
    trusted = (ip_network("127.0.0.1/32"), ip_network("10.0.0.0/8"))
    # The client sent its own X-Forwarded-For (6.6.6.6); the proxies appended what they saw.
    chain = {"x_forwarded_for": "6.6.6.6, 203.0.113.7, 10.1.2.3"}

    client, _, _ = await _seen(trusted, "127.0.0.1", **chain)

    assert client == "203.0.113.7"


async def test_a_websocket_over_https_is_wss() -> None:
    _, scheme, _ = await _seen("*", "127.0.0.1", "websocket", x_forwarded_proto="https")

    assert scheme == "wss"


@pytest.mark.parametrize(
    ("raw", "parsed"),
    [
        ("0", ()),
        ("", ()),
        ("1", "*"),
        ("127.0.0.1, 10.0.0.0/8", (ip_network("127.0.0.1/32"), ip_network("10.0.0.0/8"))),
        ("::1", (ip_network("::1/128"),)),
    ],
)
def test_the_setting_names_none_any_or_these_proxies(raw: str, parsed: object) -> None:
    setting = setting_named("ARENA_TRUST_PROXY")

    assert read_setting(setting, {"ARENA_TRUST_PROXY": raw}) == parsed


def test_a_malformed_proxy_list_is_refused() -> None:
    with pytest.raises(SettingsError, match="ARENA_TRUST_PROXY"):
        read_setting(setting_named("ARENA_TRUST_PROXY"), {"ARENA_TRUST_PROXY": "proxy.local"})
