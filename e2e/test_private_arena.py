"""A private arena (``ARENA_PASSPHRASE``) in the real single-port product: the login page in a
browser, and the UI's sockets and feeds refused to anyone without a session."""

from __future__ import annotations

import json
import re

import httpx
import pytest
import websockets
from playwright.async_api import Browser, expect

from e2e.conftest import PASSPHRASE, screenshot
from e2e.test_arena_ui import STREAM_TIMEOUT, _ask, _wait_votable
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_reflex_event_socket_refuses_a_browser_without_a_session(
    private_product: ProductProcess,
) -> None:
    url = private_product.url.replace("http://", "ws://") + "/_event/?EIO=4&transport=websocket"

    with pytest.raises(websockets.InvalidStatus) as refused:
        async with websockets.connect(url):
            pass

    assert refused.value.response.status_code == 401
    assert json.loads(refused.value.response.body)["code"] == "login_required"


async def test_the_live_feed_and_the_ui_files_need_a_session(
    private_product: ProductProcess,
) -> None:
    async with httpx.AsyncClient(base_url=private_product.url, timeout=30) as client:
        feed = await client.get("/_arena/live/a-ticket")
        page = await client.get("/", headers={"accept": "text/html"})
        health = await client.get("/health")
        await client.post("/login", data={"passphrase": PASSPHRASE})
        feed_signed_in = await client.get("/_arena/live/a-ticket")
        page_signed_in = await client.get("/", headers={"accept": "text/html"})

    assert feed.status_code == 401 and feed.json()["code"] == "login_required"
    assert page.status_code == 303 and page.headers["location"].startswith("/login")
    assert health.status_code == 200
    assert feed_signed_in.status_code == 404  # past the gate: no round under that ticket
    assert page_signed_in.status_code == 200 and "<html" in page_signed_in.text.lower()


async def test_a_voter_signs_in_plays_a_round_and_signs_out(
    private_product: ProductProcess, browser: Browser
) -> None:
    context = await browser.new_context(viewport={"width": 1400, "height": 900})
    page = await context.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    refused: list[str] = []
    page.on(
        "response",
        lambda r: refused.append(f"{r.request.method} {r.url}") if r.status >= 400 else None,
    )

    await page.goto(private_product.url + "/insights/rankings")
    await expect(page).to_have_url(private_product.url + "/login?next=%2Finsights%2Frankings")
    await expect(page.get_by_label("Passphrase")).to_be_focused()
    await screenshot(page, "private-login")

    await page.get_by_label("Passphrase").fill("not it")
    await page.keyboard.press("Enter")
    await expect(page.get_by_role("alert")).to_have_text("That passphrase is not right")
    await page.get_by_label("Passphrase").fill(PASSPHRASE)
    await page.get_by_role("button", name="Sign in").click()

    await expect(page).to_have_url(
        re.compile(re.escape(private_product.url) + "/insights/rankings/?$")
    )
    await page.goto(private_product.url + "/")
    await expect(page.get_by_test_id("send")).to_be_enabled(timeout=STREAM_TIMEOUT)
    await _ask(page, "Hello from a private arena")
    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()

    await page.get_by_role("link", name="Sign out").click()
    await page.get_by_role("button", name="Sign out").click()
    await expect(page).to_have_url(private_product.url + "/login")
    await page.goto(private_product.url + "/")
    await expect(page.get_by_label("Passphrase")).to_be_visible()
    await context.close()

    # The one refusal a browser saw is the wrong passphrase (a 401 page, logged by the console).
    assert refused == [f"POST {private_product.url}/login?next=%2Finsights%2Frankings"]
    assert len(errors) == 1 and "401" in errors[0]


async def test_the_login_page_fits_a_phone(
    private_product: ProductProcess, browser: Browser
) -> None:
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = await context.new_page()

    await phone.goto(private_product.url + "/")
    await expect(phone.get_by_role("button", name="Sign in")).to_be_in_viewport()
    width = await phone.evaluate("document.documentElement.scrollWidth")
    await screenshot(phone, "private-login-phone")
    await context.close()

    assert width <= 390
