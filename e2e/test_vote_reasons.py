"""Why a vote, in a real browser: the reason chips go with the vote (click or keyboard, desktop
and phone), and the insights page counts them per model, following the dashboard's cut."""

from __future__ import annotations

import asyncpg
import pytest
from playwright.async_api import Browser, Page, expect

from e2e.conftest import ARTEFACTS, screenshot
from e2e.test_arena_ui import _ask, _open, _wait_votable
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

BARS = ".recharts-bar-rectangle"


@pytest.mark.parametrize(
    ("device", "width", "height"),
    [pytest.param("desktop", 1280, 800, id="desktop"), pytest.param("phone", 390, 844, id="phone")],
)
async def test_reason_chips_are_ticked_by_click_or_keyboard_and_go_with_the_vote(
    voter_product: ProductProcess, browser: Browser, device: str, width: int, height: int
) -> None:
    """The chips say why, optionally: a click or Tab and Space ticks one (aria-pressed), a
    second press unticks it, the vote stores the ticked ones, and the next round starts with
    none ticked."""
    phone = device == "phone"
    context = await browser.new_context(
        viewport={"width": width, "height": height}, is_mobile=phone, has_touch=phone
    )
    page = await context.new_page()
    errors: list[str] = []
    page.on("pageerror", lambda e: errors.append(str(e)))
    prompt = f"Why would you vote on a {device}?"
    await _open(page, voter_product.url + "/")
    await _ask(page, prompt)
    await _wait_votable(page)
    chips = page.get_by_role("group", name="Why? (optional)")
    accuracy = chips.get_by_role("button", name="Accuracy")
    speed = chips.get_by_role("button", name="Speed")
    style = chips.get_by_role("button", name="Style")

    await accuracy.click()
    await speed.focus()
    await page.keyboard.press("Space")
    await style.click()
    await style.click()  # changed their mind

    await expect(accuracy).to_have_attribute("aria-pressed", "true")
    await expect(speed).to_have_attribute("aria-pressed", "true")
    await expect(style).to_have_attribute("aria-pressed", "false")
    await _shot(page, f"reasons-ticked-{device}")
    await page.get_by_test_id("vote-right").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    await _shot(page, f"reasons-voted-{device}")
    conn = await asyncpg.connect(voter_product.env["DATABASE_URL"])
    try:
        stored = await conn.fetchval(
            "SELECT p.reasons FROM preferences p JOIN matchups m ON m.id = p.matchup_id "
            "WHERE m.prompt = $1",
            prompt,
        )
    finally:
        await conn.close()
    assert stored == ["accuracy", "speed"]
    await _ask(page, "And the next round?")
    await _wait_votable(page)
    await expect(accuracy).to_have_attribute("aria-pressed", "false")
    await expect(speed).to_have_attribute("aria-pressed", "false")
    await context.close()
    assert not errors, f"page errors: {errors}"


async def _shot(page: Page, name: str) -> None:
    """What the person sees (the viewport: on a phone, the vote bar sticks to its bottom)."""
    ARTEFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTEFACTS / f"{name}.png"))


async def test_the_insights_page_counts_the_reasons_per_winning_model_for_its_cut(
    demo_product: ProductProcess, page: Page
) -> None:
    """The demo's votes carry reasons: the style tab draws a bar per model with every name,
    and picking the judge's votes (none) empties the panel without a reload."""
    await page.goto(f"{demo_product.url}/insights/style")
    panel = page.get_by_test_id("card-why-people-voted")

    await expect(panel.locator(BARS).first).to_be_attached(timeout=20_000)

    await expect(panel).to_contain_text("votes said why")
    for reason in ("Accuracy", "Helpfulness", "Style", "Speed"):
        await expect(panel.locator(".recharts-legend-wrapper")).to_contain_text(reason)
    conn = await asyncpg.connect(demo_product.env["DATABASE_URL"])
    try:
        winners = await conn.fetchval(
            "SELECT count(DISTINCT winner_model_id) FROM preferences "
            "WHERE reasons <> '{}' AND winner_model_id IS NOT NULL"
        )
    finally:
        await conn.close()
    assert await panel.locator(".recharts-yAxis .recharts-cartesian-axis-tick").count() == winners
    await panel.scroll_into_view_if_needed()
    await screenshot(page, "insights-reasons")
    await page.set_viewport_size({"width": 390, "height": 844})
    await panel.scroll_into_view_if_needed()
    await _shot(page, "insights-reasons-phone")
    await page.set_viewport_size({"width": 1400, "height": 900})
    await page.get_by_role("radio", name="Judge").click()
    await expect(panel).to_contain_text("No vote with a reason yet")
    await page.get_by_role("radio", name="People").click()
    await expect(panel.locator(BARS).first).to_be_attached(timeout=20_000)
