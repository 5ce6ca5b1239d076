"""Images on the arena page in a real browser: pasted, dropped and picked, shown as thumbnails
that can be removed, sent with the prompt, answered by two vision models, and shown in the
conversation through a signed link that loads; refused with a clear notice where fewer than two
models read images; not offered where the arena takes none."""

from __future__ import annotations

import base64
import io
import re
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from PIL import Image
from playwright.async_api import Browser, Page, expect

from e2e.conftest import _serving, watched_page
from e2e.test_accessibility import _serious_violations
from e2e.test_arena_ui import STREAM_TIMEOUT, _open, _wait_votable
from tests.support import ROOT, ProductProcess

pytestmark = [pytest.mark.browser, pytest.mark.slow]

SHOTS = Path("/tmp/h_ui/shots")


def _png(size: tuple[int, int], colour: tuple[int, int, int]) -> bytes:
    picture = Image.new("RGB", size, colour)
    out = io.BytesIO()
    picture.save(out, format="PNG")
    return out.getvalue()


RED = _png((64, 48), (200, 40, 90))
BLUE = _png((120, 90), (30, 90, 200))
GREEN = _png((300, 200), (40, 160, 90))


@pytest.fixture(scope="module", autouse=True)
def _shots_folder() -> None:
    SHOTS.mkdir(parents=True, exist_ok=True)


async def _shot(page: Page, name: str) -> None:
    await page.screenshot(path=str(SHOTS / f"{name}.png"), full_page=True)


async def _paste(page: Page, png: bytes, name: str = "pasted.png") -> None:
    """Ctrl+V of an image: a paste event on the prompt box whose clipboard holds a PNG file."""
    await page.get_by_test_id("prompt").evaluate(
        """(box, [b64, name]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const data = new DataTransfer();
            data.items.add(new File([bytes], name, {type: 'image/png'}));
            box.focus();
            box.dispatchEvent(new ClipboardEvent('paste', {clipboardData: data, bubbles: true,
                                                           cancelable: true}));
        }""",
        [base64.b64encode(png).decode(), name],
    )


async def _drop(page: Page, png: bytes, name: str = "dropped.png") -> None:
    """A file dragged from the desktop and dropped on the prompt area."""
    await page.get_by_test_id("prompt-area").evaluate(
        """(zone, [b64, name]) => {
            const bytes = Uint8Array.from(atob(b64), (c) => c.charCodeAt(0));
            const data = new DataTransfer();
            data.items.add(new File([bytes], name, {type: 'image/png'}));
            for (const type of ['dragenter', 'dragover', 'drop']) {
                zone.dispatchEvent(new DragEvent(type, {dataTransfer: data, bubbles: true,
                                                        cancelable: true}));
            }
        }""",
        [base64.b64encode(png).decode(), name],
    )


async def _pick(page: Page, png: bytes, name: str = "picked.png") -> None:
    """The file picker behind the paperclip, as a person's choice of a file fills it."""
    await page.locator('.arena-pick input[type="file"]').set_input_files(
        files=[{"name": name, "mimeType": "image/png", "buffer": png}]
    )


@pytest.fixture
async def desktop(browser: Browser) -> AsyncIterator[Page]:
    async with watched_page(browser, viewport={"width": 1280, "height": 800}) as page:
        yield page


@pytest.fixture
async def phone(browser: Browser) -> AsyncIterator[Page]:
    async with watched_page(
        browser,
        viewport={"width": 390, "height": 844},
        device_scale_factor=2,
        is_mobile=True,
        has_touch=True,
    ) as page:
        yield page


async def test_pasted_dropped_and_picked_images_are_answered_and_linked_in_the_conversation(
    voter_product: ProductProcess, desktop: Page
) -> None:
    page = desktop
    await _open(page, voter_product.url + "/")
    attach = page.get_by_test_id("attach")
    await expect(attach).to_have_attribute("aria-label", "Attach images")
    await expect(page.locator('.arena-pick input[type="file"]')).to_have_attribute(
        "accept", re.compile("image/png.*image/jpeg.*image/gif.*image/webp")
    )

    await _paste(page, RED)
    await expect(page.get_by_test_id("pending-image")).to_have_count(1, timeout=STREAM_TIMEOUT)
    await _drop(page, BLUE)
    await expect(page.get_by_test_id("pending-image")).to_have_count(2, timeout=STREAM_TIMEOUT)
    await page.get_by_test_id("prompt").fill("What is in these pictures?")
    await _shot(page, "desktop-two-images-attached")
    assert await _serious_violations(page) == []
    await _pick(page, GREEN)
    await expect(page.get_by_test_id("pending-image")).to_have_count(3, timeout=STREAM_TIMEOUT)
    await expect(
        page.get_by_role("img", name=re.compile(r"Attached image 3: PNG 300x200"))
    ).to_be_visible()
    await page.get_by_role("button", name="Remove image 3").click()
    await page.get_by_role("button", name="Remove image 2").click()
    await expect(page.get_by_test_id("pending-image")).to_have_count(1)

    await page.get_by_test_id("prompt").press("Enter")  # Enter still sends

    for slot in ("A", "B"):
        await expect(page.get_by_test_id(f"pane-{slot}")).to_contain_text(
            "I see 1 image", timeout=STREAM_TIMEOUT
        )
    await expect(page.get_by_test_id("pending-image")).to_have_count(0)
    await expect(page.get_by_test_id("prompt-image")).to_have_count(1)
    await _wait_votable(page)
    await page.get_by_test_id("vote-left").click()
    await expect(page.get_by_test_id("reveal-A")).to_have_text(re.compile(r"^Mock "))
    await expect(page.get_by_test_id("reveal-B")).to_have_text(re.compile(r"^Mock "))
    assert await _serious_violations(page) == []
    await _shot(page, "desktop-finished-round")

    await page.get_by_test_id("prompt").fill("And what colour is it?")
    await page.get_by_test_id("send").click()
    await _wait_votable(page)
    past = page.get_by_test_id("past-turn")
    await expect(past.get_by_test_id("prompt-image")).to_have_count(1)
    link = past.get_by_test_id("prompt-image").get_by_role("link")
    await expect(link).to_have_attribute("target", "_blank")
    href = await link.get_attribute("href")
    assert href is not None and href.startswith("/_arena/images/")
    served = await page.request.get(voter_product.url + href)
    assert served.status == 200
    assert served.headers["content-type"] == "image/png"
    with Image.open(io.BytesIO(await served.body())) as stored:
        assert (stored.format, stored.size) == ("PNG", (64, 48))
    stranger = await page.request.get(voter_product.url + re.sub(r"s=[^&]+", "s=someone", href))
    assert stranger.status == 404


async def test_a_phone_shows_attached_images_and_the_finished_round(
    voter_product: ProductProcess, phone: Page
) -> None:
    page = phone
    await _open(page, voter_product.url + "/")
    # Three at once, none waiting for the last to be checked: none is lost.
    await _paste(page, RED)
    await _pick(page, GREEN)
    await _paste(page, BLUE)
    await expect(page.get_by_test_id("pending-image")).to_have_count(3, timeout=STREAM_TIMEOUT)
    await expect(
        page.get_by_role("img", name=re.compile(r"Attached image 2: PNG 300x200"))
    ).to_be_visible()
    await page.get_by_role("button", name="Remove image 3").click()
    await expect(page.get_by_test_id("pending-image")).to_have_count(2)
    await page.get_by_test_id("prompt").fill("Compare these two pictures, please.")
    await _shot(page, "phone-two-images-attached")
    widths = await page.evaluate("[document.documentElement.scrollWidth, window.innerWidth]")
    assert widths[0] <= widths[1], "the page scrolls sideways"

    await page.get_by_test_id("send").click()

    for slot in ("A", "B"):
        await expect(page.get_by_test_id(f"pane-{slot}")).to_contain_text(
            "I see 2 images", timeout=STREAM_TIMEOUT
        )
    await _wait_votable(page)
    await page.get_by_test_id("vote-right").click()
    await expect(page.get_by_test_id("reveal-B")).to_have_text(re.compile(r"^Mock "))
    await _shot(page, "phone-finished-round")


def _few_vision_roster(folder: Path) -> Path:
    roster = folder / "models.yaml"
    roster.write_text(
        "models:\n"
        "  - {display_name: Mock Aurora, provider: mock, provider_model_id: mock-aurora, "
        "vision: true}\n"
        "  - {display_name: Mock Borealis, provider: mock, provider_model_id: mock-borealis}\n"
        "  - {display_name: Mock Dune Mini, provider: mock, provider_model_id: mock-dune-mini}\n"
    )
    return roster


@pytest.fixture(scope="module")
def few_vision_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """A roster where one model reads images."""
    folder = tmp_path_factory.mktemp("few-vision")
    yield from _serving(fresh_database, folder, ARENA_MODELS_FILE=str(_few_vision_roster(folder)))


@pytest.fixture(scope="module")
def no_images_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """``ARENA_MAX_IMAGES=0``: the arena takes no images."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("no-images"),
        ARENA_MAX_IMAGES="0",
        ARENA_MODELS_FILE=str(ROOT / "models.yaml"),
    )


async def test_with_one_vision_model_a_prompt_with_images_is_refused_and_kept(
    few_vision_product: ProductProcess, desktop: Page
) -> None:
    page = desktop
    await _open(page, few_vision_product.url + "/")
    await _paste(page, RED)
    await expect(page.get_by_test_id("pending-image")).to_have_count(1, timeout=STREAM_TIMEOUT)
    await page.get_by_test_id("prompt").fill("Describe this")

    await page.get_by_test_id("send").click()

    await expect(page.get_by_test_id("notice")).to_contain_text(
        "Fewer than two models here read images", timeout=STREAM_TIMEOUT
    )
    await expect(page.get_by_test_id("prompt")).to_have_value("Describe this")
    await expect(page.get_by_test_id("pending-image")).to_have_count(1)


async def test_an_arena_that_takes_no_images_offers_no_paperclip(
    no_images_product: ProductProcess, desktop: Page
) -> None:
    page = desktop
    await _open(page, no_images_product.url + "/")

    await _paste(page, RED)

    await expect(page.get_by_test_id("attach")).to_have_count(0)
    await expect(page.get_by_test_id("pending-image")).to_have_count(0)
