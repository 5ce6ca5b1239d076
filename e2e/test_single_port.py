"""UI, its event socket and the API answer on one port, from the real ``arena serve``."""

from __future__ import annotations

import httpx
import pytest
import websockets
from playwright.async_api import Page, expect

from tests.support import ProductProcess

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
