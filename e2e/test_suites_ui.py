"""The suites page: run the shipped example suite, follow it to the end, compare two runs."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Browser, Page, expect

from e2e.conftest import screenshot
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_a_suite_runs_to_the_end_and_two_runs_compare(
    voter_product: ProductProcess, page: Page
) -> None:
    await page.goto(voter_product.url + "/suites")
    await expect(page.get_by_text("A few everyday questions")).to_be_visible()

    await page.get_by_test_id("run-example").click()
    await expect(page.get_by_test_id("run-status")).to_have_text("done", timeout=60_000)
    await expect(page.get_by_test_id("results").get_by_role("row")).to_have_count(6)
    await expect(page.get_by_test_id("run-progress")).to_contain_text(
        re.compile(r"^5 of 5 prompts judged · cost \$")
    )
    await screenshot(page, "suites-run-done")

    await page.get_by_test_id("run-example").click()
    await expect(page.get_by_test_id("runs").get_by_role("row")).to_have_count(3)
    await expect(page.get_by_test_id("runs").get_by_text("running")).to_have_count(
        0, timeout=60_000
    )
    await page.get_by_role("combobox", name="First run").click()
    await page.get_by_role("option").nth(1).click()
    await page.get_by_role("combobox", name="Second run").click()
    await page.get_by_role("option").nth(0).click()
    await page.get_by_test_id("compare").click()

    await expect(page.get_by_test_id("diff-summary")).to_contain_text(
        re.compile(r"^\d changed, \d unchanged$")
    )
    await expect(page.get_by_test_id("diff").get_by_role("row")).to_have_count(6)
    await expect(page.get_by_test_id("diff").get_by_text("—")).to_have_count(0)  # both judged
    await screenshot(page, "suites-diff")


async def test_the_suites_page_fits_a_phone(
    voter_product: ProductProcess, browser: Browser
) -> None:
    context = await browser.new_context(viewport={"width": 390, "height": 844}, is_mobile=True)
    phone = await context.new_page()
    await phone.goto(voter_product.url + "/suites")
    await phone.get_by_test_id("run-example").click()
    await expect(phone.get_by_test_id("run-status")).to_have_text("done", timeout=60_000)

    width = await phone.evaluate("document.documentElement.scrollWidth")
    await screenshot(phone, "suites-phone")
    await context.close()

    assert width <= 390  # the tables scroll inside their cards; the page does not
