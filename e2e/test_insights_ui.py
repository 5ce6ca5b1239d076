"""The insights dashboard in a real browser: every tab draws with demo data, teaches when empty."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from e2e.conftest import screenshot
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABS = ("rankings", "head-to-head", "style", "activity")
MARKS = ".recharts-surface path, .recharts-surface rect, .recharts-surface circle"


@pytest.mark.parametrize("tab", TABS)
async def test_each_tab_renders_its_charts_from_demo_data(
    demo_product: ProductProcess, page: Page, tab: str
) -> None:
    await page.goto(f"{demo_product.url}/insights/{tab}")

    await expect(page.get_by_test_id("summary")).to_contain_text("3,000")
    await expect(page.get_by_test_id("insights-notice")).to_have_count(0)
    await expect(page.locator(MARKS).first).to_be_attached(timeout=20_000)
    assert await page.locator(MARKS).count() > 5
    await screenshot(page, f"insights-{tab}")


async def test_insights_index_redirects_and_a_deep_link_survives_reload(
    demo_product: ProductProcess, page: Page
) -> None:
    await page.goto(f"{demo_product.url}/insights")
    await expect(page).to_have_url(f"{demo_product.url}/insights/rankings")

    await page.goto(f"{demo_product.url}/insights/head-to-head")
    await page.reload()

    await expect(page.get_by_test_id("h2h-matrix")).to_be_visible()
    await page.locator(".h2h-cell").filter(has_text="%").first.click()
    await expect(page.get_by_test_id("pair-detail")).to_contain_text("games")


async def test_an_empty_arena_shows_the_remedy_instead_of_charts(
    empty_product: ProductProcess, page: Page
) -> None:
    await page.goto(f"{empty_product.url}/insights/style")

    notice = page.get_by_test_id("insights-notice")
    await expect(notice).to_contain_text("arena db seed-demo")
    await expect(page.get_by_text("The style pass has not run yet.")).to_be_visible()


async def test_the_activity_tab_shows_what_the_answers_cost(
    demo_product: ProductProcess, page: Page
) -> None:
    await page.goto(f"{demo_product.url}/insights/activity")

    card = page.get_by_test_id("card-spend-by-model")
    await expect(page.get_by_test_id("spend-total")).to_contain_text(re.compile(r"^\$[\d,.]+ over"))
    await expect(card.get_by_role("row")).to_have_count(5)  # the header and the four models
    await expect(card.get_by_role("rowheader").first).to_be_visible()
    chart = page.get_by_test_id("card-spend-per-day-(usd)")
    await expect(chart.locator(".recharts-bar-rectangle").first).to_be_attached(timeout=20_000)
    await card.scroll_into_view_if_needed()
    await screenshot(page, "insights-activity-cost")


async def test_the_dashboard_counts_the_population_picked(
    demo_product: ProductProcess, page: Page
) -> None:
    await page.goto(f"{demo_product.url}/insights/rankings")
    await expect(page.get_by_test_id("summary")).to_contain_text("3,000")

    await page.get_by_role("radio", name="Judge").click()

    # The demo history has no judge votes: the dashboard says so instead of drawing.
    await expect(page.get_by_test_id("insights-notice")).to_contain_text("No judge votes yet")
    await page.get_by_test_id("tab-head-to-head").click()
    await expect(page.get_by_role("radio", name="Judge")).to_be_checked()
    await screenshot(page, "insights-judge-population")
    await page.get_by_role("radio", name="People").click()
    await expect(page.get_by_test_id("summary")).to_contain_text("3,000")


async def test_the_category_picker_cuts_every_chart_to_one_slice_of_prompts(
    demo_product: ProductProcess, page: Page
) -> None:
    await page.goto(f"{demo_product.url}/insights/rankings")
    summary = page.get_by_test_id("summary")
    await expect(summary).to_contain_text("3,000")

    await page.get_by_test_id("category-picker").click()
    coding = page.get_by_role("option", name=re.compile(r"^Coding · [\d,]+$"))
    label = await coding.inner_text()
    votes = label.rsplit("· ", 1)[1]
    assert 0 < int(votes.replace(",", "")) < 3_000
    await expect(page.get_by_role("option", name=re.compile(r"^Language: en · "))).to_be_visible()
    await coding.click()

    # Every count on the page is now the coding prompts' alone, and stays so across tabs.
    await expect(summary).to_contain_text(votes)
    await expect(summary).not_to_contain_text("3,000")
    await expect(page.get_by_test_id("category-picker")).to_contain_text("Coding")
    await screenshot(page, "insights-category-coding")
    # Too few coding votes for a board of their own: the page says so, not "run the rating".
    await expect(page.get_by_test_id("insights-notice")).to_contain_text("no board of their own")
    await page.get_by_test_id("tab-head-to-head").click()
    await expect(page.get_by_test_id("category-picker")).to_contain_text("Coding")
    await expect(summary).to_contain_text(votes)
    await page.set_viewport_size({"width": 390, "height": 844})
    await screenshot(page, "insights-category-phone")
    # Style control is fitted over every prompt: its cards say so instead of drawing nothing.
    await page.get_by_test_id("tab-style").click()
    slots = page.get_by_test_id("card-decisive-win-rate-in-slot-a-vs-slot-b")
    await expect(slots.locator(MARKS).first).to_be_attached(timeout=20_000)  # the tab loaded
    coefficients = page.get_by_test_id("card-style-coefficients-(rating-points)")
    await expect(coefficients).to_contain_text("Style control is fitted over every prompt")
    await expect(coefficients.locator(".recharts-surface")).to_have_count(0)
    await page.set_viewport_size({"width": 1400, "height": 1000})
    await screenshot(page, "insights-category-style")
