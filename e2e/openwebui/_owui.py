"""Page helpers for a real Open WebUI 0.12.4 chat page, driven by Playwright.

The selectors were read off the live 0.12.4 pages (see the comments beside each); Open WebUI
gives few test ids, so some are its element ids and classes. The shape of a chat page:

    #messages-container
      div[role=listitem].message-listitem        one per turn: the user's message, or the answers
        div#message-<uuid>.user-message           a user message
        div#message-<uuid>                        one answer (single model)
        div#responses-container-<chat>-<parent>   the compare view: one column per model
          div#message-<uuid>                      one answer per column, left to right
            span#response-message-model-name      the label: the model's name from /v1/models
            div#response-content-container        the rendered Markdown of the answer
            button.copy-response-button           shown once the answer finished streaming
    #chat-input                                   the message box (Enter sends)
    button[aria-label="Stop"]                     shown while any answer streams
"""

from __future__ import annotations

import contextlib
import re
from pathlib import Path
from urllib.parse import quote, urlsplit

from playwright.async_api import Locator, Page, expect

from tests.support import ROOT

__all__ = [
    "SCREENSHOTS",
    "answer_labels",
    "answer_texts",
    "chat_title",
    "latest_answers",
    "offered_models",
    "open_chat",
    "screenshot",
    "send_message",
    "wait_for_answers",
]

SCREENSHOTS = ROOT / "test-results" / "openwebui"
READY_TIMEOUT = 60_000
ANSWER_TIMEOUT = 60_000
TITLE_TIMEOUT = 30_000

_TURN = "div[role='listitem'].message-listitem"
_ANSWER = "div[id^='message-']:not(.user-message)"
_LABEL = "[id='response-message-model-name']"  # an id repeated once per column
_CONTENT = "[id='response-content-container']"
_DONE = ".copy-response-button"  # ResponseMessage renders its action bar once `done`
_STOP = "button[aria-label='Stop']"
_SELECTED = "button[aria-label^='Selected model: ']"
_UNTITLED = "New Chat"


def _whats_new(page: Page) -> Locator:
    return page.get_by_role("dialog").filter(has_text="What's New in")


async def _dismiss_whats_new(page: Page) -> None:
    """Close the first-visit "What's New" dialog.

    It opens once per user and version (closing it stores the version in the user's settings on
    the server), a moment after the page loaded, and covers the chat input until closed. Its
    "Okay, Let's Go!" button was seen doing nothing when the URL asked for a model Open WebUI
    does not offer; the "Close" (x) button closed it every time.
    """
    dialog = _whats_new(page)
    for name in ("Close", "Okay, Let's Go!"):
        await dialog.get_by_role("button", name=name, exact=True).click()
        try:
            await expect(dialog).to_be_hidden(timeout=5_000)
            return
        except AssertionError:
            continue
    raise AssertionError("Open WebUI's What's New dialog does not close")


async def open_chat(page: Page, base_url: str, *model_ids: str) -> None:
    """Open a new chat with ``model_ids`` selected (two or more: the compare view).

    Waits for ``load`` (never ``networkidle``: the page keeps its socket busy) and for the chat
    input; the "What's New" dialog is closed whenever it shows up before a later action.
    """
    await page.add_locator_handler(_whats_new(page), lambda _: _dismiss_whats_new(page))
    models = ",".join(quote(model_id, safe="") for model_id in model_ids)
    await page.goto(f"{base_url}/?models={models}", wait_until="load")
    await expect(page.locator("#chat-input")).to_be_visible(timeout=READY_TIMEOUT)
    # An id Open WebUI does not offer is dropped silently (another model gets selected).
    offered = await offered_models(page)
    missing = [model_id for model_id in model_ids if model_id not in offered]
    if missing:
        raise AssertionError(f"Open WebUI offers no model {missing}; it offers {offered}")
    selected = offered[model_ids[0]] + (f" +{len(model_ids) - 1}" if len(model_ids) > 1 else "")
    await expect(page.locator(_SELECTED)).to_have_attribute(
        "aria-label", f"Selected model: {selected}", timeout=READY_TIMEOUT
    )


async def offered_models(page: Page) -> dict[str, str]:
    """The models Open WebUI offers (its ``/api/models``: our ``/v1/models`` passed through),
    as id: name; asked from the page, with the signed-in user's token."""
    pairs = await page.evaluate(
        """async () => {
            const response = await fetch('/api/models', {
                headers: {Authorization: `Bearer ${localStorage.token}`},
            });
            return (await response.json()).data.map((model) => [model.id, model.name]);
        }"""
    )
    return {str(model_id): str(name) for model_id, name in pairs}


async def send_message(page: Page, text: str) -> None:
    """Type ``text`` into the chat input and press Enter; returns once its turn is on the page
    (the user's message and the answers' placeholders), not when the answers are done."""
    turns = page.locator(_TURN)
    before = await turns.count()
    box = page.locator("#chat-input")
    await box.click()
    await box.fill(text)
    await box.press("Enter")
    await expect(turns).to_have_count(before + 2, timeout=READY_TIMEOUT)


def _latest_answers(page: Page) -> Locator:
    return page.locator(_TURN).last.locator(_ANSWER)


async def wait_for_answers(page: Page, columns: int = 1, limit_ms: float = ANSWER_TIMEOUT) -> None:
    """Wait until every answer of the latest turn (``columns`` of them) finished streaming.

    Raises:
        AssertionError: not within ``limit_ms``; the message quotes what the answers show.
    """
    answers = _latest_answers(page)
    try:
        await expect(answers).to_have_count(columns, timeout=limit_ms)
        for column in range(columns):
            await expect(answers.nth(column).locator(_DONE)).to_be_visible(timeout=limit_ms)
        await expect(page.locator(_STOP)).to_have_count(0, timeout=limit_ms)
    except AssertionError as exc:
        shown = await answers.all_inner_texts()
        raise AssertionError(f"the answers did not finish; they show {shown}") from exc


def latest_answers(page: Page) -> Locator:
    """The rendered answers of the latest turn, one per column, left to right."""
    return _latest_answers(page).locator(_CONTENT)


async def answer_texts(page: Page) -> list[str]:
    """The text of the latest turn's answers, one per column, left to right."""
    return [text.strip() for text in await latest_answers(page).all_inner_texts()]


async def answer_labels(page: Page) -> list[str]:
    """The label shown above each answer of the latest turn (the model's name), left to right."""
    labels = _latest_answers(page).locator(_LABEL)
    return [text.strip() for text in await labels.all_inner_texts()]


async def chat_title(page: Page, limit_ms: float = TITLE_TIMEOUT) -> str:
    """The current chat's title in the sidebar (opened if collapsed), once it is not "New Chat".

    A new chat is called "New Chat" until Open WebUI's background title request answers; when
    that request fails, a one-answer chat is named after its first message and a compare chat
    stays "New Chat". Returns "New Chat" if the title does not change within ``limit_ms``.
    """
    await expect(page).to_have_url(re.compile(r"/c/[^/?#]+"), timeout=limit_ms)
    chat_path = urlsplit(page.url).path
    opener = page.get_by_role("button", name="Open Sidebar")
    if await opener.is_visible():
        await opener.click()
    title = page.locator(f"#sidebar a[href='{chat_path}'] div[dir='auto']").first
    await expect(title).to_be_visible(timeout=limit_ms)
    # The sidebar slides in from the left: wait until the title is on screen, for the
    # screenshot that may follow.
    await page.wait_for_function(
        "title => title.getBoundingClientRect().left >= 0",
        arg=await title.element_handle(),
        timeout=limit_ms,
    )
    with contextlib.suppress(AssertionError):
        await expect(title).not_to_have_text(_UNTITLED, timeout=limit_ms)
    return (await title.inner_text()).strip()


async def screenshot(page: Page, name: str) -> Path:
    """Save what the page shows now as ``test-results/openwebui/<name>.png``."""
    SCREENSHOTS.mkdir(parents=True, exist_ok=True)
    path = SCREENSHOTS / f"{name}.png"
    await page.screenshot(path=str(path))
    return path
