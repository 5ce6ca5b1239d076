"""The arena page in a real browser: a blind round, votes, follow-ups, stop, and safety."""

from __future__ import annotations

import json
import re

import asyncpg
import pytest
from playwright.async_api import Page, expect

from e2e.conftest import screenshot
from tests.support import ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

STREAM_TIMEOUT = 30_000


async def _open(page: Page, url: str) -> None:
    """Load the arena page and wait until it is hydrated (Send is disabled until then)."""
    await page.goto(url)
    await expect(page.get_by_test_id("send")).to_be_enabled(timeout=STREAM_TIMEOUT)


async def _ask(page: Page, prompt: str) -> None:
    await page.get_by_test_id("prompt").fill(prompt)
    await page.get_by_test_id("send").click()


async def _wait_votable(page: Page) -> None:
    await expect(page.get_by_test_id("vote-left")).to_be_enabled(timeout=STREAM_TIMEOUT)


async def _roster(product: ProductProcess) -> set[str]:
    """Every string that would identify a model of this product's roster."""
    conn = await asyncpg.connect(product.env["DATABASE_URL"])
    try:
        rows = await conn.fetch("SELECT id, display_name, provider_model_id FROM models")
    finally:
        await conn.close()
    words = set()
    for row in rows:
        words |= {str(row["id"]), row["id"].hex, row["display_name"], row["provider_model_id"]}
    return words


async def test_a_full_blind_round_streams_votes_and_reveals(
    product: ProductProcess, page: Page
) -> None:
    await _open(page, product.url + "/")
    await _ask(page, "Explain JWTs in simple terms")

    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    await screenshot(page, "arena-mid-stream")
    await _wait_votable(page)
    await expect(page.get_by_test_id("reveal-A")).to_have_count(0)
    await page.get_by_test_id("vote-right").click()

    await expect(page.get_by_test_id("reveal-A")).to_have_text(re.compile(r"^Mock "))
    await expect(page.get_by_test_id("reveal-B")).to_have_text(re.compile(r"^Mock "))
    await expect(page.get_by_test_id("outcome")).to_have_text("B is better")
    await expect(page.get_by_test_id("leaderboard").get_by_text("100.0%")).to_be_visible()
    await screenshot(page, "arena-after-reveal")


async def test_keyboard_shortcut_votes_and_a_follow_up_continues_from_the_winner(
    product: ProductProcess, page: Page
) -> None:
    await _open(page, product.url + "/")
    await _ask(page, "First question")
    await _wait_votable(page)
    await page.locator("body").click()

    await page.keyboard.press("1")

    await expect(page.get_by_test_id("outcome")).to_have_text("A is better")
    await _ask(page, "A follow-up question")
    await _wait_votable(page)
    archived = page.get_by_test_id("past-turn")
    await expect(archived).to_have_count(1)
    await expect(archived).to_contain_text("First question")
    await expect(archived).to_contain_text("Mock")  # the archived turn keeps its reveal ...
    await expect(page.get_by_test_id("reveal-A")).to_have_count(0)  # ... the new one is blind


async def test_a_tie_ends_the_branch_and_offers_a_new_conversation(
    product: ProductProcess, page: Page
) -> None:
    await _open(page, product.url + "/")
    await _ask(page, "Tell me a joke")
    await _wait_votable(page)

    await page.get_by_test_id("vote-both_good").click()

    await expect(page.get_by_test_id("new-conversation")).to_be_visible()
    await page.get_by_test_id("new-conversation").click()
    await expect(page.get_by_test_id("pane-A")).to_be_hidden()


async def test_a_round_that_cannot_be_voted_on_shows_no_votes(
    shadow_product: ProductProcess, page: Page
) -> None:
    """The vote bar is laid out while a round starts (most rounds are votable); once this one
    turns out to be a shadow round, it goes, and the answer still streams."""
    await _open(page, shadow_product.url + "/")
    await _ask(page, "Answer alone")

    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)
    # Gone while the answer still streams (it takes 3 s), not only once it has ended.
    await expect(page.get_by_test_id("vote-left")).to_be_hidden(timeout=1_000)
    await expect(page.get_by_test_id("stop")).to_be_visible()
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=STREAM_TIMEOUT)
    await expect(page.get_by_test_id("vote-left")).to_be_hidden()


async def test_stop_ends_the_round_and_keeps_the_partial_answers(
    slow_product: ProductProcess, page: Page
) -> None:
    await _open(page, slow_product.url + "/")
    await _ask(page, "Write a very long essay")
    await expect(page.get_by_test_id("pane-A")).not_to_be_empty(timeout=STREAM_TIMEOUT)

    await page.get_by_test_id("stop").click()

    await expect(page.get_by_test_id("send")).to_be_visible(timeout=STREAM_TIMEOUT)
    text = await page.get_by_test_id("pane-A").inner_text()
    assert 0 < len(text.split()) < 400


async def test_a_reload_mid_round_shows_the_answers_so_far_and_keeps_streaming(
    slow_product: ProductProcess, page: Page
) -> None:
    await _open(page, slow_product.url + "/")
    await _ask(page, "Tell me a long story")
    pane = page.get_by_test_id("pane-A")
    await page.wait_for_function(_PANE_A_HAS_WORDS.format(count=12), timeout=STREAM_TIMEOUT)
    before = (await pane.inner_text()).split()

    feeds: list[str] = []
    page.on("request", lambda r: feeds.append(r.url) if "/_arena/live/" in r.url else None)
    await page.reload()

    # The state brings back the Markdown so far; the round's live feed, followed anew, brings the
    # words after it; the answer goes on from there without a word repeated or lost.
    await expect(page.get_by_test_id("stop")).to_be_visible(timeout=STREAM_TIMEOUT)
    await page.wait_for_function(
        _PANE_A_HAS_WORDS.format(count=len(before) + 8), timeout=STREAM_TIMEOUT
    )
    after = (await pane.inner_text()).split()
    assert after[: len(before) - 1] == before[:-1]  # the last word may have been half-written
    assert feeds, "the reloaded page should follow the round's live feed"
    await page.get_by_test_id("stop").click()
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=STREAM_TIMEOUT)


async def test_a_streaming_pane_follows_its_end_until_the_reader_scrolls_up(
    slow_product: ProductProcess, page: Page
) -> None:
    # Two panes side by side, short enough that an answer outgrows its box in a few seconds.
    await page.set_viewport_size({"width": 1100, "height": 420})
    await _open(page, slow_product.url + "/")
    await _ask(page, "Tell me a long story")
    pane = page.get_by_test_id("pane-A")
    await page.wait_for_function(_PANE_A_OVERFLOWS, timeout=STREAM_TIMEOUT)
    await page.wait_for_function(_PANE_A_AT_BOTTOM, timeout=STREAM_TIMEOUT)  # it follows

    # Scrolled up by the reader, it stays where the reader put it while the answer grows (the
    # pane brought into the short window first: the prompt above it takes some of it).
    await pane.scroll_into_view_if_needed()
    box = await pane.bounding_box()
    assert box is not None
    await page.mouse.move(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
    await page.mouse.wheel(0, -5000)
    await page.wait_for_function(_PANE_A_AT_TOP, timeout=STREAM_TIMEOUT)
    grown = await pane.evaluate("el => el.scrollHeight")
    await page.wait_for_function(f"{_PANE_A}.scrollHeight > {grown} + 48", timeout=STREAM_TIMEOUT)
    assert await page.evaluate(_PANE_A_AT_TOP)

    # Back at the bottom, it follows again.
    await page.mouse.wheel(0, 100_000)
    await page.wait_for_function(_PANE_A_AT_BOTTOM, timeout=STREAM_TIMEOUT)
    grown = await pane.evaluate("el => el.scrollHeight")
    await page.wait_for_function(f"{_PANE_A}.scrollHeight > {grown} + 48", timeout=STREAM_TIMEOUT)
    await page.wait_for_function(_PANE_A_AT_BOTTOM, timeout=STREAM_TIMEOUT)
    await page.get_by_test_id("stop").click()
    await expect(page.get_by_test_id("send")).to_be_visible(timeout=STREAM_TIMEOUT)


_PANE_A = "document.querySelector('[data-testid=pane-A]')"
_PANE_A_OVERFLOWS = f"() => {_PANE_A}.scrollHeight > {_PANE_A}.clientHeight + 48"
_PANE_A_AT_BOTTOM = (
    f"() => {{ const el = {_PANE_A}; "
    "return el.scrollTop > 0 && el.scrollTop + el.clientHeight >= el.scrollHeight - 32; }"
)
_PANE_A_AT_TOP = f"() => {_PANE_A}.scrollTop === 0"
_PANE_A_HAS_WORDS = (
    "() => (document.querySelector('[data-testid=pane-A]')?.innerText || '')"
    ".split(/\\s+/).filter(Boolean).length >= {count}"
)

# Where pane A's live tail starts, and where its last rendered paragraph ends (px).
_TAIL_AND_LAST_PARAGRAPH = """() => {
  const pane = document.querySelector('[data-testid=pane-A]');
  const tail = pane.querySelector('.arena-tail');
  const paragraphs = pane.querySelectorAll('p');
  return [
    {text: tail.textContent, top: tail.getClientRects()[0].top},
    {bottom: paragraphs[paragraphs.length - 1].getBoundingClientRect().bottom},
  ];
}"""


async def test_hostile_model_output_never_runs_and_a_failed_slot_shows_its_error(
    hostile_product: ProductProcess, page: Page
) -> None:
    await _open(page, hostile_product.url + "/")
    await _ask(page, "Say something dangerous")

    await expect(page.get_by_test_id("error-A").or_(page.get_by_test_id("error-B"))).to_be_visible(
        timeout=STREAM_TIMEOUT
    )
    await _wait_votable(page)
    panes = page.get_by_test_id("pane-A").or_(page.get_by_test_id("pane-B"))
    await expect(panes.get_by_text("anchor").or_(panes.get_by_text("some text"))).not_to_have_count(
        0
    )
    for link in await page.locator("[data-testid^=pane-] a").all():
        href = await link.get_attribute("href") or ""
        assert not href.lower().startswith("javascript:")
        await link.click(no_wait_after=True)
    await page.wait_for_timeout(300)
    assert await page.evaluate("window.__pwned === undefined")
    assert await page.locator("[data-testid^=pane-] script").count() == 0
    assert await page.locator("[data-testid^=pane-] img[onerror]").count() == 0
    await screenshot(page, "arena-hostile-and-failed-slot")


async def test_a_streamed_answer_ends_as_its_whole_markdown(
    markdown_product: ProductProcess, page: Page
) -> None:
    """Streamed in three-character pieces, the answer is cut into blocks and re-rendered many
    times; what stays on screen must be the Markdown of the whole answer."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    await _open(page, markdown_product.url + "/")
    await _ask(page, "Show me some Markdown")
    await _wait_votable(page)

    # A fold inside a block sends that block alone: the list of whole blocks goes out only
    # when it has grown.
    lists = [
        len(delta["blocks_rx_state_"])
        for frame in frames
        if frame.startswith("42/_event,")
        for state, delta in json.loads(frame.removeprefix("42/_event,"))[1]["delta"].items()
        if state.endswith("pane_a_state") and "blocks_rx_state_" in delta
    ]
    opens = [frame for frame in frames if "open_block_rx_state_" in frame]
    assert len(opens) > len(lists) > 1
    assert lists == sorted(set(lists))  # only ever longer

    for slot in "AB":
        pane = page.get_by_test_id(f"pane-{slot}")
        await expect(pane.locator("h2")).to_have_text("Plan")
        await expect(pane.locator("strong")).to_have_text("bold")
        await expect(pane.locator("ol")).to_have_count(1)
        await expect(pane.locator("ol li")).to_have_count(3)
        await expect(pane.locator("pre")).to_have_count(1)
        await expect(pane.locator("pre")).to_contain_text("return x * 2")
        await expect(pane.locator("table tr")).to_have_count(3)
        await expect(pane.locator("blockquote")).to_have_text("A quote.")
        text = await pane.inner_text()
        assert text.rstrip().endswith("The last paragraph ends here.")
        assert not any(mark in text for mark in ("**", "```", "|---", "## "))


async def test_plain_prose_reaches_the_page_by_the_feed_and_its_markdown_when_its_line_ends(
    prose_product: ProductProcess, page: Page
) -> None:
    """Words that look the same as plain text are not sent again as Markdown every 0.25 s:
    the live feed shows them, and the state folds them when their line ends."""
    frames: list[str] = []
    page.on("websocket", lambda ws: ws.on("framereceived", lambda f: frames.append(str(f))))
    await _open(page, prose_product.url + "/")
    await _ask(page, "Tell me something plain")

    # Fifteen words in (0.75 s, three timer periods), the line still streams: none of it has
    # been folded into either answer's Markdown.
    await page.wait_for_function(_PANE_A_HAS_WORDS.format(count=15), timeout=STREAM_TIMEOUT)
    assert not [frame for frame in frames if '"open_block_rx_state_":"word' in frame]

    # The blank line ends its token. The second paragraph's words, still in the live tail,
    # start a line of their own, not the end of the first paragraph's last line.
    await page.wait_for_function(_PANE_A_HAS_WORDS.format(count=44), timeout=STREAM_TIMEOUT)
    tail, paragraph = await page.evaluate(_TAIL_AND_LAST_PARAGRAPH)
    assert tail["text"].startswith("more0") and tail["top"] >= paragraph["bottom"]
    # The first paragraph is a whole block; no empty open block is rendered beside it.
    await expect(page.get_by_test_id("pane-A").locator(".arena-open")).to_have_count(0)

    await _wait_votable(page)
    for slot in "AB":
        pane = page.get_by_test_id(f"pane-{slot}")
        await expect(pane.locator("p")).to_have_count(2)
        assert (await pane.locator("p").first.inner_text()).split()[-1] == "word39"
        assert (await pane.locator("p").last.inner_text()).endswith("more11 The end.")


async def test_nothing_identifies_a_model_in_the_browser_before_the_vote(
    product: ProductProcess, page: Page
) -> None:
    forbidden = await _roster(product)
    received: list[str] = []
    page.on(
        "websocket",
        lambda ws: ws.on(
            "framereceived", lambda frame: received.append(frame if isinstance(frame, str) else "")
        ),
    )
    await _open(page, product.url + "/")
    await expect(page.get_by_test_id("leaderboard").locator("tbody tr")).to_have_count(4)
    received.clear()  # the public leaderboard (loaded before the round) names models by design
    responses: list[str] = []
    page.on("response", lambda r: responses.append(r.url))
    # The answers' words also come through the round's live feed, an EventSource. The page closes
    # it when the round ends, so its response body may be gone by the time a test asks for it;
    # the browser's own record of each message it received is not.
    feed = await page.context.new_cdp_session(page)
    await feed.send("Network.enable")
    feed.on("Network.eventSourceMessageReceived", lambda m: received.append(m["data"]))

    await _ask(page, "Who are you?")
    await _wait_votable(page)
    html = await page.evaluate(_PAGE_WITHOUT_LEADERBOARD)
    assert any("/_arena/live/" in url for url in responses)
    assert any('"slot":"A"' in m for m in received) and any('"slot":"B"' in m for m in received)
    before = "\n".join(received) + html
    leaked = {word for word in forbidden if word in before}
    received.clear()
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()

    assert not leaked, f"identities reached the browser before the vote: {leaked}"
    assert not [url for url in responses if "/api/" in url]  # the UI never calls the HTTP API
    after = "\n".join(received)
    assert any(word in after for word in forbidden), "the reveal should name the models"


# The page's markup minus the leaderboard, which lists the public roster by design.
_PAGE_WITHOUT_LEADERBOARD = """() => {
  const copy = document.documentElement.cloneNode(true);
  copy.querySelectorAll('[data-testid=leaderboard]').forEach((node) => node.remove());
  return copy.outerHTML;
}"""


async def test_theme_choice_is_remembered(product: ProductProcess, page: Page) -> None:
    await _open(page, product.url + "/")
    before = await page.evaluate("document.documentElement.className")

    await page.get_by_test_id("theme-toggle").click()
    await _open(page, product.url + "/")

    after = await page.evaluate("document.documentElement.className")
    assert ("dark" in before) != ("dark" in after)


async def test_prompt_templates_survive_a_reload(product: ProductProcess, page: Page) -> None:
    await _open(page, product.url + "/")
    await page.get_by_test_id("prompt").fill("Compare Rust and Go for CLI tools")
    await page.get_by_test_id("templates").click()
    await page.get_by_test_id("save-template").click()
    # The browser keeps the template once the state's answer arrived: reloading sooner loses it.
    await expect(page.get_by_text("Saved template")).to_be_visible()
    await _open(page, product.url + "/")

    await page.get_by_test_id("templates").click()
    await page.get_by_role("menuitem", name="Compare Rust and Go for CLI tools").click()

    await expect(page.get_by_test_id("prompt")).to_have_value("Compare Rust and Go for CLI tools")


async def test_share_link_opens_the_voted_matchups_reveal(
    product: ProductProcess, page: Page
) -> None:
    await _open(page, product.url + "/")
    await _ask(page, "A question worth sharing")
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_be_visible()

    await page.get_by_test_id("share").click()
    await expect(page.get_by_text("Link to this matchup's reveal copied")).to_be_visible()
    await page.wait_for_function("navigator.clipboard.readText().then((t) => t.length > 0)")
    link = await page.evaluate("navigator.clipboard.readText()")
    await page.goto(link)

    assert re.fullmatch(rf"{re.escape(product.url)}/m/[0-9a-f-]{{36}}", link)
    await expect(page.get_by_test_id("shared-prompt")).to_have_text("A question worth sharing")
    await expect(page.get_by_test_id("shared-outcome")).to_contain_text("won")
    await expect(page.get_by_text(re.compile(r"^Mock (?!.* won$)"))).to_have_count(2)


async def test_an_unvoted_or_unknown_matchup_has_no_public_page(
    product: ProductProcess, page: Page
) -> None:
    await page.goto(product.url + "/m/00000000-0000-0000-0000-000000000000")

    await expect(page.get_by_test_id("shared-missing")).to_be_visible()
