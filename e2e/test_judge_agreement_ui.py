"""The insights page's "Judge vs people" panel in a real browser: before any verdict it says how
to get some, and after ``arena judge backfill`` (the real command, the mock judge) it shows the
agreement, κ and the matrix the API reports, desktop and phone, following the prompt slice."""

from __future__ import annotations

import asyncio
import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from typing import Any

import httpx
import pytest
from playwright.async_api import Page, expect

from e2e.conftest import ARTEFACTS, _serving, screenshot
from tests.support import ROOT, ProductProcess, parse_sse

pytestmark = [pytest.mark.browser, pytest.mark.slow]


def _arena(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "arena_api", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        capture_output=True,
        text=True,
        check=True,
        timeout=300,
    )


@pytest.fixture(scope="module")
def judged_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """Demo history of people's votes, and a judge (the mock roster's) that has read none."""
    url = fresh_database()
    _arena(
        {"DATABASE_URL": url, "ARENA_MOCK_PROVIDER": "1"},
        *("db", "seed-demo", "--votes", "600", "--days", "5"),
    )
    yield from _serving(lambda: url, tmp_path_factory.mktemp("judged"))


async def _judge_votes(client: httpx.AsyncClient, rounds: int) -> None:
    """``rounds`` new rounds voted by the judge, so that it has a board of its own."""
    for n in range(rounds):
        response = await client.post("/api/arena/chat", json={"prompt": f"Explain recursion, {n}"})
        started: dict[str, Any] = parse_sse(response.text)[0][1]
        asked = await client.post(
            f"/api/arena/matchups/{started['matchupId']}/judge",
            json={"matchupToken": started["matchupToken"]},
        )
        assert asked.status_code == 200, asked.text


async def _show(page: Page, name: str) -> None:
    """The panel, scrolled into view, as a phone or a desktop shows it."""
    panel = page.get_by_test_id("card-judge-vs-people")
    await panel.scroll_into_view_if_needed()
    ARTEFACTS.mkdir(exist_ok=True)
    await panel.screenshot(path=str(ARTEFACTS / f"{name}.png"))


async def test_the_panel_says_how_to_get_verdicts_then_shows_the_agreement(
    judged_product: ProductProcess, page: Page
) -> None:
    product = judged_product
    panel = page.get_by_test_id("card-judge-vs-people")
    await page.goto(f"{product.url}/insights/rankings")

    await expect(panel).to_contain_text("No round has both a person's vote and a verdict")
    await expect(page.get_by_test_id("judge-backfill-command")).to_have_text(
        "arena judge backfill --limit 100"
    )
    await _show(page, "judge-agreement-empty")

    client = httpx.AsyncClient(base_url=product.url, timeout=60)
    # The judge's board orders the models once its votes are not all ties, on random pairs:
    # a few more rounds until it does (tau is None while either board is one tie).
    for _ in range(5):
        await _judge_votes(client, 6)
        await asyncio.to_thread(_arena, product.env, "rate")
        if (await client.get("/api/arena/analytics/judge-agreement")).json()["tau"] is not None:
            break
    done = await asyncio.to_thread(
        _arena, product.env, "judge", "backfill", "--limit", "150", "--yes"
    )
    assert "judged 150 rounds" in done.stdout, done.stdout
    agreement = (await client.get("/api/arena/analytics/judge-agreement")).json()
    await page.reload()

    await expect(panel).to_contain_text(f"on {agreement['n']:,} blind rounds")
    await expect(panel).to_contain_text(f"{agreement['agreement']:.0%}")
    await expect(panel).to_contain_text(f"{agreement['kappa']:.2f}")
    matrix = page.get_by_test_id("judge-agreement-matrix")
    rows = matrix.get_by_role("row")
    await expect(rows).to_have_count(6)  # the header, a row per label, the totals
    for i, counts in enumerate(agreement["matrix"]):
        cells = rows.nth(i + 1).get_by_role("cell")
        assert [await cells.nth(j).inner_text() for j in range(4)] == [f"{c:,}" for c in counts]
    assert await rows.nth(5).get_by_role("cell").nth(4).inner_text() == f"{agreement['n']:,}"
    tau = page.get_by_test_id("judge-agreement-tau")
    await expect(tau).to_contain_text(f"{agreement['tau']:.2f} over {agreement['tauModels']}")
    await _show(page, "judge-agreement")
    await screenshot(page, "judge-agreement-page")

    await page.set_viewport_size({"width": 390, "height": 844})
    await expect(matrix).to_be_visible()
    width = await page.evaluate("document.documentElement.scrollWidth")
    assert width <= 390, f"the page scrolls sideways on a phone: {width}px"
    overflow = await matrix.evaluate(
        "box => Math.max(...[box, ...box.querySelectorAll('*')]"
        ".map(e => e.scrollWidth - e.clientWidth))"
    )
    assert overflow <= 0, f"the matrix is cut on a phone by {overflow}px"
    await _show(page, "judge-agreement-phone")

    # The slice picked for the dashboard cuts the panel too (without a reload). A quarter of
    # the demo's prompts set an explicit constraint, so the judged rounds always hold some.
    await page.set_viewport_size({"width": 1400, "height": 900})
    await page.get_by_test_id("category-picker").click()
    await page.get_by_role("option", name=re.compile(r"^Instruction following · ")).click()
    sliced = (
        await client.get(
            "/api/arena/analytics/judge-agreement", params={"category": "instruction_following"}
        )
    ).json()
    await client.aclose()
    assert 0 < sliced["n"] < agreement["n"]
    await expect(panel).to_contain_text(f"on {sliced['n']:,} blind rounds (Instruction following)")
    await expect(tau).to_contain_text("the judge's board covers every prompt only")
