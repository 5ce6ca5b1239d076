"""A pasted image in a real Open WebUI 0.12.4: the duel and the compare view answer it.

Open WebUI uploads a pasted image to itself and sends it to our ``/v1`` as an ``image_url``
content part with a ``data:`` URL. The mock models (``vision: true`` in models.yaml) answer
with what they were sent ("I see 1 image: 1. PNG 64x48, ..."), so each answer shows that the
image reached both sides of the round. Screenshots go to ``test-results/openwebui/``.

Runs only with ``ARENA_OPENWEBUI_BIN`` set (``make integration-openwebui``).
"""

from __future__ import annotations

import base64
import io
import os

import pytest
from PIL import Image
from playwright.async_api import Page, expect

from e2e.openwebui._owui import (
    answer_texts,
    open_chat,
    screenshot,
    send_message,
    wait_for_answers,
)
from e2e.openwebui.conftest import OPENWEBUI_BIN_ENV, NewPage, OpenWebUI

if not os.environ.get(OPENWEBUI_BIN_ENV):
    pytest.skip(
        f"{OPENWEBUI_BIN_ENV} is not set (bash e2e/openwebui/setup.sh prints it)",
        allow_module_level=True,
    )

pytestmark = [pytest.mark.browser, pytest.mark.slow]

QUESTION = "What is in this picture?"
SEEN = "I see 1 image: 1. PNG 64x48"


def _png() -> str:
    buffer = io.BytesIO()
    Image.new("RGB", (64, 48), (30, 120, 200)).save(buffer, "PNG")
    return base64.b64encode(buffer.getvalue()).decode()


async def _paste_image(page: Page) -> None:
    """Paste a PNG into the chat input (its TipTap editor reads the paste event's
    ``clipboardData``) as a person's Ctrl+V of a copied image does, and wait for Open WebUI to
    show it among the message's files."""
    box = page.locator("#chat-input")
    await box.click()
    await box.evaluate(
        """(box, data) => {
            const bytes = Uint8Array.from(atob(data), (c) => c.charCodeAt(0));
            const file = new File([bytes], 'picture.png', {type: 'image/png'});
            const transfer = new DataTransfer();
            transfer.items.add(file);
            box.dispatchEvent(new ClipboardEvent('paste', {
                clipboardData: transfer, bubbles: true, cancelable: true,
            }));
        }""",
        _png(),
    )
    # Open WebUI uploads the pasted image to its own files API and shows it as a thumbnail
    # above the input (0.12.4: an <img> whose src is the file's URL).
    await expect(page.locator("img[src*='/api/v1/files/']").first).to_be_visible(timeout=30_000)


async def _ask_with_image(page: Page, columns: int, shot: str) -> list[str]:
    await _paste_image(page)
    await send_message(page, QUESTION)
    await wait_for_answers(page, columns)
    await screenshot(page, shot)
    return await answer_texts(page)


async def test_a_pasted_image_reaches_both_answers_of_a_duel(
    openwebui: OpenWebUI, new_page: NewPage
) -> None:
    page = await new_page()
    await open_chat(page, openwebui.url, "arena-duel")

    (answer,) = await _ask_with_image(page, 1, "images-1-duel")

    assert answer.count(SEEN) == 2, answer  # Answer A and Answer B


async def test_a_pasted_image_reaches_both_columns_of_the_compare_view(
    openwebui: OpenWebUI, new_page: NewPage
) -> None:
    page = await new_page()
    await open_chat(page, openwebui.url, "arena-a", "arena-b")

    answers = await _ask_with_image(page, 2, "images-2-compare")

    assert len(answers) == 2 and all(SEEN in answer for answer in answers), answers
