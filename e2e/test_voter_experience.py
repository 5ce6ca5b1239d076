"""What a voter knows from other chat UIs: Enter sends, copy, another round on the same prompt,
and standings that move without a reload."""

from __future__ import annotations

import re
import time

import asyncpg
import httpx
import pytest
from playwright.async_api import Page, expect

from e2e.conftest import RATED_MIN_INTERVAL_S, screenshot
from e2e.test_arena_ui import STREAM_TIMEOUT, _ask, _open, _wait_votable
from tests.integration.test_metrics import votes_counted
from tests.support import ProductProcess, parse_sse

pytestmark = [pytest.mark.browser, pytest.mark.slow]


async def test_enter_sends_and_shift_enter_starts_a_new_line(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    box = page.get_by_test_id("prompt")
    await box.click()

    await page.keyboard.type("First line")
    await page.keyboard.press("Shift+Enter")
    await page.keyboard.type("second line")

    await expect(box).to_have_value("First line\nsecond line")
    await expect(page.get_by_test_id("pane-A")).to_be_hidden()

    await page.keyboard.press("Enter")

    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    await _wait_votable(page)
    await expect(box).to_have_value("")


async def test_enter_on_an_empty_box_sends_nothing(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    await page.get_by_test_id("prompt").click()

    await page.keyboard.press("Enter")

    await page.wait_for_timeout(500)
    await expect(page.get_by_test_id("pane-A")).to_be_hidden()


async def test_copy_puts_the_answers_markdown_source_on_the_clipboard(
    markdown_product: ProductProcess, page: Page
) -> None:
    await _open(page, markdown_product.url + "/")
    await _ask(page, "Show me some Markdown")
    await _wait_votable(page)

    await page.get_by_test_id("copy-A").click()

    await expect(page.get_by_text("Answer A copied")).to_be_visible()
    copied = await page.evaluate("navigator.clipboard.readText()")
    conn = await asyncpg.connect(markdown_product.env["DATABASE_URL"])
    try:
        stored = await conn.fetchval(
            "SELECT content FROM responses WHERE slot = 'A' ORDER BY created_at DESC LIMIT 1"
        )
    finally:
        await conn.close()
    assert copied == stored
    assert "**bold**" in copied and "```" in copied  # the source, not the rendered text


async def test_a_new_round_on_the_same_prompt_is_a_fresh_matchup(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    await _ask(page, "Ask it again")
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    conn = await asyncpg.connect(voter_product.env["DATABASE_URL"])
    try:
        before = await conn.fetchval("SELECT count(*) FROM matchups")

        await page.get_by_test_id("same-prompt").click()

        await _wait_votable(page)
        await expect(page.get_by_test_id("reveal-A")).to_have_count(0)
        rows = await conn.fetch("SELECT m.id FROM matchups m ORDER BY m.created_at DESC LIMIT 2")
        prompts = await conn.fetch(
            "SELECT t.prompt FROM turns t WHERE t.matchup_id = ANY($1::uuid[])",
            [r["id"] for r in rows],
        )
        after = await conn.fetchval("SELECT count(*) FROM matchups")
    finally:
        await conn.close()
    assert after == before + 1
    assert [p["prompt"] for p in prompts] == ["Ask it again", "Ask it again"]
    await expect(page.get_by_test_id("past-turn")).to_have_count(0)  # a new conversation


async def test_a_vote_moves_the_open_pages_leaderboard_without_a_reload(
    rated_product: ProductProcess, page: Page
) -> None:
    async with httpx.AsyncClient(base_url=rated_product.url) as client:
        before = await votes_counted(client)
    await _open(page, rated_product.url + "/")
    board = page.get_by_test_id("leaderboard")
    await expect(page.get_by_text("win rate (no fit yet)")).to_be_visible()
    await _ask(page, "Rate this")
    await _wait_votable(page)

    await page.get_by_test_id("vote-right").click()
    voted = time.monotonic()

    await expect(page.get_by_text("rating ± 95% CI")).to_be_visible(
        timeout=(RATED_MIN_INTERVAL_S + 5) * 1000
    )
    assert time.monotonic() - voted <= RATED_MIN_INTERVAL_S + 5
    await expect(board.get_by_text(re.compile(r"^\d{3,4} ± \d+$"))).to_have_count(2)
    # One vote settles nothing: both ratings are provisional, and either may rank first or second.
    marks = board.get_by_test_id("provisional")
    await expect(marks).to_have_count(2)
    await expect(board.get_by_role("cell", name="1–2", exact=True)).to_have_count(2)
    await marks.first.hover()
    await expect(page.get_by_role("tooltip")).to_contain_text(
        "provisional: 1 of the 30 votes a settled rating needs"
    )
    await screenshot(page, "arena-leaderboard-rated-live")
    await page.set_viewport_size({"width": 390, "height": 844})
    await board.scroll_into_view_if_needed()
    await screenshot(page, "arena-leaderboard-rated-live-phone")
    async with httpx.AsyncClient(base_url=rated_product.url) as client:
        counted = await votes_counted(client)
    assert counted.get(("human", "ui"), 0) - before.get(("human", "ui"), 0) == 1


async def test_named_side_by_side_shows_the_picked_models_from_the_start(
    slow_product: ProductProcess, page: Page
) -> None:
    await _open(page, slow_product.url + "/")
    await page.get_by_role("radio", name="Side by side").click()
    for slot, name in (("A", "Mock Cirrus"), ("B", "Mock Aurora")):
        await page.get_by_test_id(f"pick-{slot}").click()
        await page.get_by_role("option", name=name).click()
    await expect(page.get_by_test_id("pick-A")).to_have_text("Mock Cirrus")

    await _ask(page, "Compare yourselves")

    # Named while the answers are still being written.
    await expect(page.get_by_test_id("stop")).to_be_visible()
    await expect(page.get_by_test_id("reveal-A")).to_have_text("Mock Cirrus")
    await expect(page.get_by_test_id("reveal-B")).to_have_text("Mock Aurora")
    await expect(page.get_by_test_id("stop")).to_be_visible()
    await screenshot(page, "arena-named-streaming")
    await page.get_by_test_id("stop").click()
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("outcome")).to_have_text("A is better")

    conn = await asyncpg.connect(slow_product.env["DATABASE_URL"])
    try:
        row = await conn.fetchrow(
            "SELECT m.mode, a.display_name AS a, b.display_name AS b, p.vote "
            "FROM matchups m JOIN models a ON a.id = m.slot_a_model_id "
            "JOIN models b ON b.id = m.slot_b_model_id "
            "JOIN preferences p ON p.matchup_id = m.id ORDER BY m.created_at DESC LIMIT 1"
        )
    finally:
        await conn.close()
    assert dict(row) == {"mode": "named", "a": "Mock Cirrus", "b": "Mock Aurora", "vote": "left"}


async def test_enter_while_an_input_method_composes_sends_nothing(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    box = page.get_by_test_id("prompt")
    await box.fill("にほんご")

    # What a browser sends when Enter picks an input method's candidate.
    await box.evaluate(
        """(el) => el.dispatchEvent(new KeyboardEvent('keydown',
             {key: 'Enter', keyCode: 229, isComposing: true, bubbles: true, cancelable: true}))"""
    )

    await page.wait_for_timeout(500)
    await expect(page.get_by_test_id("pane-A")).to_be_hidden()
    await expect(box).to_have_value("にほんご")


async def test_the_insights_rankings_move_without_a_reload(
    rated_product: ProductProcess, page: Page
) -> None:
    await page.goto(rated_product.url + "/insights/rankings")
    summary = page.get_by_test_id("summary")
    await expect(summary).to_be_visible()
    votes_before = await summary.locator("div.rt-Card").first.inner_text()

    async with httpx.AsyncClient(base_url=rated_product.url, timeout=30) as client:
        frames = parse_sse((await client.post("/api/arena/chat", json={"prompt": "x"})).text)
        started = frames[0][1]
        vote = await client.post(
            "/api/arena/vote",
            json={
                "matchupId": started["matchupId"],
                "matchupToken": started["matchupToken"],
                "vote": "left",
            },
        )
    assert vote.status_code == 200

    await expect(summary.locator("div.rt-Card").first).not_to_have_text(
        votes_before, timeout=(RATED_MIN_INTERVAL_S + 5) * 1000
    )
    await expect(page.get_by_test_id("provisional")).to_contain_text(
        re.compile(r"^Provisional, listed last: .+ \(\d+ of the 30 votes a settled rating needs\)"),
        timeout=(RATED_MIN_INTERVAL_S + 5) * 1000,
    )
    await screenshot(page, "insights-rankings-provisional")


async def test_the_leaderboard_can_count_side_by_side_votes(
    rated_product: ProductProcess, page: Page
) -> None:
    async with httpx.AsyncClient(base_url=rated_product.url, timeout=30) as client:
        board = (await client.get("/api/arena/leaderboard")).json()
        a, b = (m["id"] for m in board["models"][:2])
        body = {"prompt": "named", "mode": "named", "models": [a, b]}
        started = parse_sse((await client.post("/api/arena/chat", json=body)).text)[0][1]
        vote = {
            "matchupId": started["matchupId"],
            "matchupToken": started["matchupToken"],
            "vote": "left",
        }
        assert (await client.post("/api/arena/vote", json=vote)).status_code == 200
        deadline = time.monotonic() + RATED_MIN_INTERVAL_S + 10
        while time.monotonic() < deadline:
            named = (await client.get("/api/arena/leaderboard?include=named")).json()
            if any(m["rating"] is not None and m["id"] == a for m in named["models"]):
                break
            await page.wait_for_timeout(250)
    await _open(page, rated_product.url + "/")
    table = page.get_by_test_id("leaderboard")
    blind = await table.inner_text()

    await page.get_by_test_id("include-named").click()

    await expect(page.get_by_test_id("include-named")).to_be_checked()
    await expect(table).not_to_have_text(blind)
    await page.wait_for_timeout(300)
    await screenshot(page, "arena-leaderboard-with-named")
    assert await page.get_by_test_id("include-named").get_attribute("data-state") == "checked"


async def test_the_judge_votes_and_its_verdict_shows_with_the_reveal(
    voter_product: ProductProcess, page: Page
) -> None:
    await _open(page, voter_product.url + "/")
    await _ask(page, "Let the judge decide")
    await _wait_votable(page)

    await page.get_by_test_id("ask-judge").click()

    await expect(page.get_by_test_id("judge-verdict")).to_contain_text(
        re.compile(
            r"^Judged by Mock Judge: (A is better|B is better|Both are good) · cost \$0\.\d+$"
        )
    )
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()
    await expect(page.get_by_test_id("vote-left")).to_be_disabled()
    await page.get_by_text("The judge's reasoning").click()
    await expect(page.get_by_test_id("judge-reasoning")).not_to_be_empty()
    await screenshot(page, "arena-judge-verdict")
    conn = await asyncpg.connect(voter_product.env["DATABASE_URL"])
    try:
        row = await conn.fetchrow(
            "SELECT p.method, v.recorded, v.judge_name FROM preferences p "
            "JOIN judge_verdicts v ON v.matchup_id = p.matchup_id "
            "ORDER BY p.created_at DESC LIMIT 1"
        )
    finally:
        await conn.close()
    assert dict(row) == {"method": "judge", "recorded": True, "judge_name": "Mock Judge"}
