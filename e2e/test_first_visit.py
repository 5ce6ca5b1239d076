"""A voter's first visit: how the arena works, examples to start from, the prompt above its
answers, an honest fresh leaderboard; and a page that guides when no model can play, or says
that it is a demo."""

from __future__ import annotations

import re

import pytest
from playwright.async_api import Page, expect

from arena_api.examples import BUILTIN_EXAMPLE_PROMPTS
from e2e.conftest import OPERATOR_EXAMPLES, screenshot
from e2e.test_arena_ui import STREAM_TIMEOUT, _ask, _open, _wait_votable
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_a_first_visit_says_how_the_arena_works_and_offers_examples(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")

    intro = page.get_by_test_id("intro")
    await expect(intro).to_contain_text("two anonymous models answer side by side")
    await expect(intro).to_contain_text("then see which models they were")
    await expect(page.get_by_test_id("example")).to_have_text(list(BUILTIN_EXAMPLE_PROMPTS))
    await screenshot(page, "first-visit")


async def test_an_example_fills_the_box_and_focuses_it_without_sending(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    box = page.get_by_test_id("prompt")

    await page.get_by_test_id("example").nth(2).click()

    await expect(box).to_have_value(BUILTIN_EXAMPLE_PROMPTS[2])
    await expect(box).to_be_focused()
    assert await box.evaluate("b => b.selectionStart === b.value.length")
    await expect(page.get_by_test_id("pane-A")).to_be_hidden()  # nothing was sent


async def test_the_prompt_shows_above_the_answers_while_they_stream(
    slow_product: ProductProcess, page: Page
) -> None:
    await _open(page, slow_product.url + "/")

    await _ask(page, "Tell me about\nthe northern lights")

    shown = page.get_by_test_id("round-prompt")
    await expect(page.get_by_text("writing…").first).to_be_visible(timeout=STREAM_TIMEOUT)
    await expect(shown).to_have_text("Tell me about\nthe northern lights")
    await expect(page.get_by_test_id("intro")).to_be_hidden()
    await expect(page.get_by_test_id("examples")).to_be_hidden()
    prompt_box = await shown.bounding_box()
    pane_box = await page.get_by_test_id("pane-A").bounding_box()
    assert prompt_box and pane_box and prompt_box["y"] + prompt_box["height"] <= pane_box["y"]
    await page.get_by_test_id("stop").click()
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=STREAM_TIMEOUT)


async def test_the_prompt_stays_above_the_answers_after_the_vote_and_the_follow_up(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    await _ask(page, "What is a monad?")
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("round-prompt")).to_have_text("What is a monad?")
    # The vote is recorded (the box offers the follow-up) before the person asks one.
    await expect(page.get_by_test_id("prompt")).to_have_attribute(
        "placeholder", re.compile(r"^Follow up")
    )

    await _ask(page, "And a functor?")

    await _wait_votable(page)
    await expect(page.get_by_test_id("past-prompt")).to_have_text("What is a monad?")
    await expect(page.get_by_test_id("round-prompt")).to_have_text("And a functor?")
    await screenshot(page, "first-visit-follow-up")


async def test_a_fresh_leaderboard_says_no_games_yet_instead_of_a_win_rate(
    empty_product: ProductProcess, page: Page
) -> None:
    await page.goto(empty_product.url + "/")

    board = page.get_by_test_id("leaderboard")
    await expect(board.get_by_text("no games yet")).to_have_count(4)
    await expect(board.get_by_text(re.compile(r"%$"))).to_have_count(0)


async def test_an_arena_whose_models_cannot_answer_says_how_to_add_some(
    unplayable_product: ProductProcess, page: Page
) -> None:
    await page.goto(unplayable_product.url + "/")

    notice = page.get_by_test_id("setup-notice")
    await expect(notice).to_contain_text("This arena has no model it can use; a round needs 2.")
    await expect(notice.locator("code")).to_contain_text(
        ["/app/models.yaml", "ARENA_MODELS=openai:gpt-4o-mini,openai:gpt-4.1-mini"]
    )
    await expect(notice).to_contain_text("ARENA_DEMO=1")
    await expect(notice).to_contain_text("docs/providers.md")
    await expect(page.get_by_test_id("send")).to_be_disabled()
    await expect(page.get_by_test_id("intro")).to_have_count(0)
    await expect(page.get_by_test_id("examples")).to_have_count(0)
    await screenshot(page, "first-visit-no-models")


@pytest.mark.parametrize("path", ["/", "/insights/rankings", "/suites"])
async def test_a_demo_says_so_on_every_page(
    demo_mode_product: ProductProcess, page: Page, path: str
) -> None:
    await page.goto(demo_mode_product.url + path)

    banner = page.get_by_test_id("demo-banner")
    await expect(banner).to_contain_text("demo: mock models")
    await expect(banner).to_contain_text("The answers are canned text from mock models")


async def test_an_arena_with_real_models_shows_no_demo_banner(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")

    await expect(page.get_by_test_id("demo-banner")).to_have_count(0)


async def test_the_operators_example_prompts_are_offered_a_few_at_a_time(
    demo_mode_product: ProductProcess, page: Page
) -> None:
    await _open(page, demo_mode_product.url + "/")

    examples = page.get_by_test_id("example")
    await expect(examples).to_have_count(4)
    shown = await examples.all_inner_texts()
    assert set(shown) <= set(OPERATOR_EXAMPLES)
    assert shown == sorted(shown, key=OPERATOR_EXAMPLES.index)  # in the file's order
