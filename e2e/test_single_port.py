"""UI, its event socket and the API answer on one port, from the real ``arena serve``."""

from __future__ import annotations

import http.client
import re
import uuid

import httpx
import pytest
import websockets
from playwright.async_api import Page, expect

from tests.support import ProductProcess, open_twice, reconnect_early

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_page_loads_and_reaches_the_backend_over_its_event_socket(
    product: ProductProcess, page: Page
) -> None:
    await page.goto(product.url + "/")

    await expect(page).to_have_title("Arena")
    # The leaderboard arrives through Reflex's event socket from ArenaService and the database.
    rows = page.get_by_test_id("leaderboard").locator("tbody tr")
    await expect(rows).to_have_count(4, timeout=30_000)
    await expect(page.get_by_text("Mock Aurora")).to_be_visible()


async def test_health_and_api_404_answer_json_on_the_ui_port(product: ProductProcess) -> None:
    async with httpx.AsyncClient(base_url=product.url) as client:
        health = await client.get("/health")
        missing = await client.get("/v1/nothing-here")
        page = await client.get("/")

    assert health.status_code == 200 and health.json()["status"] == "ok"
    assert missing.status_code == 404
    assert missing.headers["content-type"] == "application/json"
    assert page.status_code == 200 and "text/html" in page.headers["content-type"]


async def test_reflex_event_socket_opens_on_the_same_port(product: ProductProcess) -> None:
    url = product.url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"

    async with websockets.connect(url) as socket:
        opening = await socket.recv()

    assert isinstance(opening, str) and opening.startswith("0{")
    assert '"sid"' in opening


async def test_only_the_pages_own_origin_opens_the_event_socket(product: ProductProcess) -> None:
    url = product.url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"

    async with websockets.connect(url, origin=product.url) as socket:  # type: ignore[arg-type]
        opening = await socket.recv()
    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url, origin="https://evil.example"):  # type: ignore[arg-type]
            pass

    assert isinstance(opening, str) and opening.startswith("0{")
    assert refused.value.response.status_code == 403


async def test_the_page_its_files_and_the_api_carry_the_security_headers(
    product: ProductProcess,
) -> None:
    evil = {"origin": "https://evil.example"}
    async with httpx.AsyncClient(base_url=product.url, timeout=30) as client:
        page = await client.get("/", headers=evil)
        # A reload revalidates: the 304's headers are laid over the cached page's, so it must not
        # bring a policy of its own (it names no content type).
        revalidated = await client.get("/", headers={"if-none-match": page.headers["etag"]})
        script = re.search(r'src="(/assets/[^"]+\.js)"|href="(/assets/[^"]+\.js)"', page.text)
        assert script is not None
        asset = await client.get(next(g for g in script.groups() if g), headers=evil)
        api = await client.get("/api/arena/leaderboard", headers=evil)
        async with client.stream(
            "POST", "/api/arena/chat", json={"prompt": "hi"}, headers=evil
        ) as stream:
            sse = stream.headers

    policy = page.headers["content-security-policy"]
    assert revalidated.status_code == 304
    assert "content-security-policy" not in revalidated.headers
    assert "script-src 'self' 'unsafe-eval' 'sha256-" in policy
    assert "frame-ancestors 'none'" in policy and "object-src 'none'" in policy
    for headers in (page.headers, asset.headers, api.headers, sse):
        assert headers["x-content-type-options"] == "nosniff"
        assert headers["x-frame-options"] == "DENY"
        assert headers["referrer-policy"] == "same-origin"
        assert "content-security-policy" in headers
        # Reflex's own CORS layers are gone: no origin is reflected, nothing is said twice.
        assert "access-control-allow-origin" not in headers
        assert "access-control-allow-credentials" not in headers
        assert all(len(headers.get_list(name)) == 1 for name in headers)
    assert sse["content-type"].startswith("text/event-stream")


# Refusals that come before the body is read, each followed by a good request on one connection.
_REFUSALS = (
    ("POST", "/api/arena/chat", b"x" * 300_000, "text/plain", 415),
    ("POST", "/api/arena/chat", b"x" * 2_000_000, "application/json", 413),
    ("PUT", "/api/arena/leaderboard", b"x" * 300_000, "application/json", 405),
    ("POST", "/api/nothing-here", b"x" * 300_000, "application/json", 404),
    ("POST", "/api/arena/chat", b"{" + b"x" * 300_000, "application/json", 400),
)


async def test_a_socket_that_reconnects_early_keeps_its_session(product: ProductProcess) -> None:
    # A reload or a network blink: the page's new socket arrives before the server has seen the
    # old one close. It keeps its token (its state: the round on screen); a duplicated tab, both
    # open, gets a token of its own.
    token = str(uuid.uuid4())

    assert await reconnect_early(product, product, token) == []
    twin = await open_twice(product, product, token)
    assert len(twin) == 1 and twin[0] != token


def test_a_refusal_leaves_its_keep_alive_connection_usable(product: ProductProcess) -> None:
    """Granian, as ``arena serve`` runs it: after each early refusal the same connection serves
    the next request, or the refusal said ``Connection: close`` (a client then opens another)."""
    host, port = product.url.removeprefix("http://").split(":")
    connection = http.client.HTTPConnection(host, int(port), timeout=30)
    outcomes = []
    try:
        for _ in range(20):
            for method, path, body, kind, status in _REFUSALS:
                connection.request(method, path, body=body, headers={"Content-Type": kind})
                refusal = connection.getresponse()
                refusal.read()
                socket_before = connection.sock
                closes = (refusal.getheader("connection") or "").lower() == "close"
                connection.request("GET", "/api/arena/leaderboard")
                good = connection.getresponse()
                good.read()
                reused = connection.sock is socket_before and socket_before is not None
                outcomes.append((path, refusal.status, status, good.status, closes or reused))
    finally:
        connection.close()

    assert all(got == want for _, got, want, _, _ in outcomes), outcomes
    assert all(good == 200 and kept for *_, good, kept in outcomes), outcomes
