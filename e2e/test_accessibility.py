"""The arena page for everyone: axe-core finds nothing serious, names for what a screen reader
meets, a polite announcer, and a phone layout whose vote bar stays in reach."""

from __future__ import annotations

from collections.abc import AsyncIterator
from typing import Any

import pytest
from playwright.async_api import Browser, Page, expect

from e2e.conftest import screenshot
from e2e.test_arena_ui import STREAM_TIMEOUT, _ask, _open, _wait_votable
from tests.support import ROOT, ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

AXE = ROOT / ".arena" / "tools" / "node_modules" / "axe-core" / "axe.min.js"


async def _serious_violations(page: Page) -> list[dict[str, Any]]:
    """axe-core's violations of impact serious or critical (WCAG 2.x A and AA rules)."""
    # Evaluated by the browser's debugger, not as a <script> the page's CSP would refuse.
    await page.evaluate(AXE.read_text())
    result = await page.evaluate(
        """() => axe.run(document, {runOnly: {type: 'tag',
                 values: ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa', 'best-practice']}})"""
    )
    return [
        {
            "id": v["id"],
            "impact": v["impact"],
            "nodes": [
                n["html"][:160] + " " + n.get("failureSummary", "")[:300] for n in v["nodes"]
            ],
        }
        for v in result["violations"]
        if v["impact"] in ("serious", "critical")
    ]


@pytest.fixture
async def phone(browser: Browser) -> AsyncIterator[Page]:
    """A phone: 390 x 844, touch, mobile user agent (Playwright's iPhone 13 metrics)."""
    context = await browser.new_context(
        viewport={"width": 390, "height": 844},
        device_scale_factor=3,
        is_mobile=True,
        has_touch=True,
    )
    page = await context.new_page()
    yield page
    await context.close()


@pytest.mark.parametrize("theme", ["light", "dark"])
async def test_the_arena_page_has_no_serious_or_critical_axe_violation(
    voter_product: ProductProcess, page: Page, theme: str
) -> None:
    await page.emulate_media(color_scheme=theme)  # type: ignore[arg-type]
    await _open(page, voter_product.url + "/")
    assert await _serious_violations(page) == []

    await _ask(page, "Is this page accessible?")
    await _wait_votable(page)
    assert await _serious_violations(page) == []

    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    assert await _serious_violations(page) == []


async def test_screen_readers_meet_named_controls_and_a_polite_announcer(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    announcer = page.get_by_test_id("announcer")
    await expect(announcer).to_have_attribute("aria-live", "polite")
    await expect(page.get_by_role("region", name="Leaderboard")).to_be_visible()

    await _ask(page, "Announce the steps")
    await expect(page.get_by_role("region", name="Answer A")).to_be_visible()
    await expect(page.get_by_role("region", name="Answer B")).to_be_visible()
    await _wait_votable(page)

    await expect(announcer).to_have_text("Both answers are in. Vote with the keys 1 to 5.")
    votes = page.get_by_role("group", name="Your vote")
    for name in ("A is better", "B is better", "Both good", "Both bad", "Skip"):
        await expect(votes.get_by_role("button", name=name)).to_be_enabled()
    await expect(page.get_by_role("button", name="Copy answer A")).to_be_visible()

    await votes.get_by_role("button", name="B is better").click()
    await expect(announcer).to_contain_text("Vote recorded: B is better. Model A was Mock ")


async def test_on_a_phone_the_answers_stack_and_the_vote_bar_stays_in_reach(
    voter_product: ProductProcess, phone: Page
) -> None:
    await _open(phone, voter_product.url + "/")
    await screenshot(phone, "phone-empty")
    await _ask(phone, "Explain JWTs in simple terms, with an example")
    await _wait_votable(phone)

    a = await phone.get_by_test_id("pane-A").bounding_box()
    b = await phone.get_by_test_id("pane-B").bounding_box()
    board = await phone.get_by_test_id("leaderboard").bounding_box()
    assert a and b and board
    assert b["y"] >= a["y"] + a["height"]  # stacked, B below A
    assert board["y"] >= b["y"] + b["height"]  # the leaderboard folds below the round
    assert a["width"] <= 390 and b["width"] <= 390  # nothing wider than the screen
    too_wide = await phone.evaluate(
        """() => [...document.querySelectorAll('body *')]
            .filter((e) => e.getBoundingClientRect().right > window.innerWidth + 0.5)
            .map((e) => e.outerHTML.slice(0, 120))"""
    )
    assert too_wide == []

    # Wherever the reader is in the answers, the votes are on screen.
    for where in ("top", "answer A", "answer B"):
        if where == "answer A":
            await phone.get_by_test_id("pane-A").scroll_into_view_if_needed()
        elif where == "answer B":
            await phone.get_by_test_id("pane-B").scroll_into_view_if_needed()
        await expect(phone.get_by_test_id("vote-left")).to_be_in_viewport()
        await phone.screenshot(path=str(ROOT / "test-results" / f"phone-votable-{where[-1]}.png"))

    await phone.get_by_test_id("vote-right").click()
    await expect(phone.get_by_test_id("reveal-B")).to_be_visible(timeout=STREAM_TIMEOUT)
    await screenshot(phone, "phone-after-vote")
