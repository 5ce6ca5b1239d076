"""Arena behind Debian's nginx with deploy/nginx.conf: a Reflex page load and a round in the
browser, a stream that is not buffered, and a control-plane stop, all through the proxy."""

from __future__ import annotations

import asyncio
import json
import time
from collections.abc import Callable, Iterator

import httpx
import pytest
import websockets
from playwright.async_api import Page, expect

from e2e.conftest import _serving, screenshot
from e2e.test_arena_ui import _ask, _open, _wait_votable
from tests.support import ROOT, NginxServer, ProductProcess, parse_sse

pytestmark = [pytest.mark.browser, pytest.mark.slow]

NGINX = "/usr/sbin/nginx"


@pytest.fixture(scope="session")
def proxied_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The mock roster at 20 tokens/s (400 tokens, time to press stop), trusting its proxy."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("proxied"),
        ARENA_TRUST_PROXY="127.0.0.1",
        ARENA_MOCK_TOKENS_PER_SECOND="20",
        ARENA_MOCK_TOKENS="400",
    )


@pytest.fixture(scope="session")
def nginx(
    proxied_product: ProductProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[str]:
    """nginx on a free port with deploy/nginx.conf's server block in front of the product."""
    server = (ROOT / "deploy" / "nginx.conf").read_text()
    server = server.replace("127.0.0.1:3001", f"127.0.0.1:{proxied_product.port}")
    with NginxServer(tmp_path_factory.mktemp("nginx"), server) as proxy:
        yield proxy.url


async def test_a_page_loads_and_a_round_runs_through_the_proxy(nginx: str, page: Page) -> None:
    sockets: list[str] = []
    page.on("websocket", lambda ws: sockets.append(ws.url))

    await _open(page, nginx + "/")
    await _ask(page, "Through the proxy")
    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=30_000)
    await page.get_by_test_id("stop").click()
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()

    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    port = nginx.rsplit(":", 1)[1]
    assert sockets and all(f":{port}/" in url for url in sockets), sockets  # the event socket too
    await screenshot(page, "arena-behind-nginx")


async def test_a_stream_through_the_proxy_is_not_buffered(
    nginx: str, proxied_product: ProductProcess
) -> None:
    arrivals: list[float] = []
    async with httpx.AsyncClient(base_url=nginx, timeout=60) as client:
        started = time.monotonic()
        async with client.stream("POST", "/api/arena/chat", json={"prompt": "stream"}) as answer:
            async for chunk in answer.aiter_text():
                if "event: token" in chunk:
                    arrivals.append(time.monotonic() - started)
                if len(arrivals) >= 10:
                    break
    async with httpx.AsyncClient(base_url=proxied_product.url, timeout=60) as client:
        async with client.stream("POST", "/api/arena/chat", json={"prompt": "direct"}) as direct:
            # What tells nginx (and any proxy that reads it) not to buffer; nginx consumes it.
            assert direct.headers["x-accel-buffering"] == "no"

    # 400 tokens at 20 per second take 20 s; buffered, nothing would arrive before the end.
    assert arrivals[0] < 5
    assert arrivals[-1] - arrivals[0] > 0.1  # they came one after another, not in one piece


async def test_a_control_plane_stop_goes_through_the_proxy(nginx: str) -> None:
    text, reply = "", None
    control = nginx.replace("http://", "ws://") + "/api/arena/control"
    async with httpx.AsyncClient(base_url=nginx, timeout=60) as client:
        async with client.stream("POST", "/api/arena/chat", json={"prompt": "stop me"}) as answer:
            async for chunk in answer.aiter_text():
                text += chunk
                if reply is None and "event: token" in text:
                    matchup = parse_sse(text)[0][1]["matchupId"]
                    async with websockets.connect(control) as socket:
                        await socket.send(json.dumps({"type": "stop", "matchupId": matchup}))
                        reply = json.loads(await asyncio.wait_for(socket.recv(), 10))

    assert reply is not None
    assert reply["type"] == "stopped" and reply["matchupId"] == matchup
    assert [event for event, _ in parse_sse(text)][-1] == "matchup_done"
