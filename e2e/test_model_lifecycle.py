"""Paused and archived models on the page: the compact board keeps them with a muted mark whose
tooltip says what it means, and the insights rankings name them under the chart."""

from __future__ import annotations

from collections.abc import Callable, Iterator

import httpx
import pytest
from playwright.async_api import Page, expect

from e2e.conftest import RATED_MIN_INTERVAL_S, _serving, screenshot
from e2e.test_arena_ui import _open
from tests.support import ProductProcess, parse_sse, run_cli

pytestmark = [pytest.mark.browser, pytest.mark.slow]

#: The board after the statuses change: the rating process refits within this.
REFIT_MS = (RATED_MIN_INTERVAL_S + 8) * 1000


@pytest.fixture(scope="module")
def lifecycle_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The mock roster with the rating process beside it, for this module alone: its tests
    pause and archive models."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("lifecycle"),
        ARENA_RATING_WORKER="embedded",
        RATING_MIN_INTERVAL_S=str(RATED_MIN_INTERVAL_S),
    )


async def _play_until_everyone_played(url: str) -> None:
    """Blind rounds voted ``left`` until each of the four mock models has played twice."""
    played: dict[str, int] = {}
    async with httpx.AsyncClient(base_url=url, timeout=30) as client:
        for _ in range(60):
            started = parse_sse((await client.post("/api/arena/chat", json={"prompt": "x"})).text)
            body = started[0][1]
            vote = await client.post(
                "/api/arena/vote",
                json={
                    "matchupId": body["matchupId"],
                    "matchupToken": body["matchupToken"],
                    "vote": "left",
                },
            )
            assert vote.status_code == 200, vote.text
            for model in vote.json()["models"].values():
                played[model["displayName"]] = played.get(model["displayName"], 0) + 1
            if len(played) == 4 and min(played.values()) >= 2:
                return
    raise AssertionError(f"too few games in 60 rounds: {played}")


async def test_paused_and_archived_models_stay_on_the_board_marked(
    lifecycle_product: ProductProcess, page: Page
) -> None:
    await _play_until_everyone_played(lifecycle_product.url)
    env = {"DATABASE_URL": lifecycle_product.env["DATABASE_URL"]}
    for name, status in (("Mock Borealis", "archived"), ("Mock Cirrus", "paused")):
        changed = run_cli(("models", "set-status", name, status), env)
        assert changed.returncode == 0, changed.stderr

    await _open(page, lifecycle_product.url + "/")
    board = page.get_by_test_id("leaderboard")
    marks = board.get_by_test_id("status")
    await expect(marks).to_have_count(2, timeout=REFIT_MS)
    await expect(board.get_by_role("row")).to_have_count(5)  # the header and all four models
    archived = board.get_by_role("row").filter(has_text="Mock Borealis")
    paused = board.get_by_role("row").filter(has_text="Mock Cirrus")
    await expect(archived.get_by_test_id("status")).to_have_text("archived")
    await expect(paused.get_by_test_id("status")).to_have_text("paused")
    await expect(page.get_by_text("rating ± 95% CI")).to_be_visible(timeout=REFIT_MS)

    await archived.get_by_test_id("status").hover()
    await expect(page.get_by_role("tooltip")).to_have_text(
        "archived: no longer in the roster, history kept"
    )
    await screenshot(page, "lifecycle-leaderboard")
    await page.keyboard.press("Escape")  # Radix keeps a tooltip open until told
    await expect(page.get_by_role("tooltip")).to_have_count(0)
    await paused.get_by_test_id("status").hover()
    await expect(page.get_by_role("tooltip")).to_have_text("paused: not matched for now")
    await page.set_viewport_size({"width": 390, "height": 844})
    await board.scroll_into_view_if_needed()
    await screenshot(page, "lifecycle-leaderboard-phone")

    await page.set_viewport_size({"width": 1280, "height": 800})
    await page.goto(lifecycle_product.url + "/insights/rankings")
    held_back = page.get_by_test_id("held-back")
    await expect(held_back).to_contain_text(
        "Kept for their history, never matched: ", timeout=REFIT_MS
    )
    await expect(held_back).to_contain_text(
        "Mock Borealis (archived: no longer in the roster, history kept)"
    )
    await expect(held_back).to_contain_text("Mock Cirrus (paused: not matched for now)")
    await screenshot(page, "lifecycle-insights-rankings")
