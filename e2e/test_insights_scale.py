"""The insights dashboard at 30 and 100 models, on a desktop and a phone: every ranked chart
prints every model's name on a line of its own, the pair matrix keeps each cell under its
column's header, and the time charts show a few models by name with a picker for the rest.

Each arena is a demo history (``arena db seed-demo``, rating history included) rated once, then
served with two of its models left out of the roster: they have games and a history but are no
longer enabled, and must still be named, never shown by id.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Locator, Page, expect

from arena_api.db.demo import DEMO_MODELS
from e2e.conftest import screenshot
from tests.support import ROOT, ProductProcess, free_port

pytestmark = [pytest.mark.browser, pytest.mark.slow]

TABS = ("rankings", "head-to-head", "style", "activity")
VIEWS = {"desktop": (1280, 800), "phone": (390, 844)}
#: Votes per arena: enough for every pair at 30 models, a few games a pair at 100.
VOTES = {30: 20_000, 100: 30_000}
UUID = re.compile(r"[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}")
MOCK_MODELS = (
    ("Mock Aurora", "mock-aurora"),
    ("Mock Borealis", "mock-borealis"),
    ("Mock Cirrus", "mock-cirrus"),
    ("Mock Dune Mini", "mock-dune-mini"),
)


def _roster(path: Path, models: list[tuple[str, str]]) -> Path:
    """The models, each with a price of its own (so that every one of them costs something)."""
    path.write_text(
        "models:\n"
        + "".join(
            f"  - {{display_name: {name}, provider: mock, provider_model_id: {model_id}, "
            f"price: {{input: {1 + k % 7}, output: {2 + k % 11}}}}}\n"
            for k, (name, model_id) in enumerate(models)
        )
    )
    return path


def _arena(name: str, args: list[str], env: dict[str, str]) -> None:
    subprocess.run(
        [sys.executable, "-m", "arena_api", *args],
        cwd=ROOT,
        env={**os.environ, **env},
        check=True,
        capture_output=True,
        timeout=600,
    )


@pytest.fixture(scope="module", params=[30, 100], ids=["30-models", "100-models"])
def scaled(
    request: pytest.FixtureRequest,
    fresh_database: Callable[[], str],
    tmp_path_factory: pytest.TempPathFactory,
) -> Iterator[tuple[int, ProductProcess, list[str]]]:
    """An arena of ``n`` models with a rated demo history, served with its last two models
    left out of the roster; yields ``n``, the server and the two models' names."""
    n: int = request.param
    folder = tmp_path_factory.mktemp(f"scale-{n}")
    extra = [*DEMO_MODELS, *((f"Demo Model {k}", f"demo-model-{k}") for k in range(1, n))]
    models = [*MOCK_MODELS, *extra][:n]
    url = fresh_database()
    env = {"DATABASE_URL": url, "ARENA_MOCK_PROVIDER": "1", "ARENA_DATA_DIR": str(folder / "d")}
    env["ARENA_MODELS_FILE"] = str(_roster(folder / "all.yaml", models))
    _arena("seed", ["db", "seed-demo", "--votes", str(VOTES[n]), "--days", "30"], env)
    _arena("rate", ["rate", "--style"], env)
    served = {
        **env,
        "ARENA_MODELS_FILE": str(_roster(folder / "served.yaml", models[:-2])),
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
    }
    server = ProductProcess(served, free_port(), folder / "serve.log").start()
    try:
        yield n, server, [name for name, _ in models[-2:]]
    finally:
        server.stop()


def _board(server: ProductProcess) -> list[dict[str, object]]:
    models: list[dict[str, object]] = httpx.get(f"{server.url}/api/arena/leaderboard").json()[
        "models"
    ]
    return models


async def _names(card: Locator) -> list[str]:
    """A ranked chart's names, top to bottom, each asserted to be printed on one line."""
    ticks = card.locator(".recharts-yAxis-tick-labels .recharts-cartesian-axis-tick-value")
    await expect(ticks.first).to_be_attached(timeout=20_000)
    lines = await ticks.evaluate_all("ts => ts.map(t => t.querySelectorAll('tspan').length)")
    assert set(lines) == {1}, "a name wrapped onto a second line"
    return [text.strip() for text in await ticks.all_text_contents()]


async def test_every_ranked_chart_prints_every_models_name(
    scaled: tuple[int, ProductProcess, list[str]], page: Page
) -> None:
    n, server, _ = scaled
    board = _board(server)
    rated = [str(m["displayName"]) for m in board if m["rating"] is not None]

    await page.goto(f"{server.url}/insights/rankings")

    assert len(rated) >= n - 2
    assert await _names(page.get_by_test_id("card-win-rate")) == rated
    assert await _names(page.get_by_test_id("card-bradley-terry-rating-(95%-ci)")) == rated
    for card in ("default-vs-style-controlled", "rank-shift-under-style-control"):
        assert sorted(await _names(page.get_by_test_id(f"card-{card}"))) == sorted(rated)
    assert await _names(page.get_by_test_id("card-vote-outcomes")) == rated
    # One row per model: the chart grows with them, each row tall enough for its name.
    box = await page.get_by_test_id("card-win-rate").locator(".recharts-surface").bounding_box()
    assert box is not None and box["height"] >= 20 * len(rated)
    await page.goto(f"{server.url}/insights/style")
    slots = await _names(page.get_by_test_id("card-decisive-win-rate-in-slot-a-vs-slot-b"))
    assert slots[: len(rated)] == rated  # the board's order, then the two off the roster


async def _x(locator: Locator) -> float:
    box = await locator.bounding_box()
    assert box is not None
    return box["x"] + box["width"] / 2


async def test_the_pair_matrix_keeps_every_cell_under_its_columns_header(
    scaled: tuple[int, ProductProcess, list[str]], page: Page
) -> None:
    n, server, outside = scaled
    await page.goto(f"{server.url}/insights/head-to-head")
    matrix = page.get_by_test_id("h2h-matrix")
    columns = matrix.locator("th.h2h-column")
    await expect(columns).to_have_count(20)  # the top 20 unless asked for more

    await page.get_by_role("combobox", name="How many models the matrix shows").click()
    await page.get_by_role("option", name="All models").click()

    await expect(columns).to_have_count(n, timeout=30_000)  # 10,000 cells at 100 models
    await expect(page.get_by_test_id("matrix-caption")).to_contain_text(f"{n} of {n} models")
    headers = [t.strip() for t in await columns.all_text_contents()]
    rows = matrix.locator("tr.h2h-matrix-row")
    assert [t.strip() for t in await matrix.locator("th.h2h-row").all_text_contents()] == headers
    cells = await rows.evaluate_all("rs => rs.map(r => r.querySelectorAll('td.h2h-cell').length)")
    assert cells == [n] * n
    assert set(outside) <= set(headers)  # off the roster, still named
    assert not any(UUID.search(h) for h in headers)
    # Aligned on screen, not only counted: a cell sits under its column's header.
    for row in (0, n // 2, n - 1):
        for column in (0, n // 2, n - 1):
            cell = rows.nth(row).locator("td.h2h-cell").nth(column)
            await cell.scroll_into_view_if_needed()
            assert abs(await _x(cell) - await _x(columns.nth(column))) < 1
    diagonal = rows.nth(n // 2).locator("td.h2h-cell").nth(n // 2)
    await expect(diagonal).to_have_text("—")

    await page.get_by_test_id("matrix-filter").fill("Atlas")

    await expect(columns).to_have_count(4)
    assert all("Atlas" in t for t in await columns.all_text_contents())
    await page.get_by_role("combobox", name="Order of the matrix").click()
    await page.get_by_role("option", name="By name").click()
    atlas = ("Demo Atlas 2.5 Pro", "Demo Atlas 3 Flash", "Demo Atlas 3 Lite", "Demo Atlas 3 Pro")
    await expect(columns).to_have_text(list(atlas))
    await rows.first.locator("td.h2h-cell").nth(1).click()
    await expect(page.get_by_test_id("pair-detail")).to_contain_text(
        re.compile(r"^Demo Atlas 2\.5 Pro vs Demo Atlas 3 Flash: \d+ wins")
    )


async def test_the_time_charts_name_a_few_models_and_the_picker_adds_one(
    scaled: tuple[int, ProductProcess, list[str]], page: Page
) -> None:
    n, server, outside = scaled
    await page.goto(f"{server.url}/insights/activity")
    chips = page.get_by_test_id("series-chip")
    rating = page.get_by_test_id("card-rating-over-time")
    await expect(chips).to_have_count(8)
    await expect(rating.locator(".recharts-line")).to_have_count(8)
    assert not UUID.search(await page.locator("body").inner_text())

    await page.get_by_test_id("series-add").click()
    await page.get_by_role("option", name=outside[0], exact=True).click()

    await expect(chips).to_have_count(9)
    await expect(chips.last).to_have_text(outside[0])
    await expect(rating.locator(".recharts-line")).to_have_count(9)
    # Its line has the points the history holds for it, though it left the roster.
    line = rating.locator(".recharts-line-curve").last
    assert len(await line.get_attribute("d") or "") > 100
    await expect(
        page.get_by_test_id("card-cumulative-games").locator(".recharts-line")
    ).to_have_count(9)
    await chips.first.click()
    await expect(chips).to_have_count(8)
    assert not UUID.search(await page.locator("body").inner_text())
    await page.get_by_test_id("series-reset").click()
    await expect(chips).to_have_count(8)
    await expect(chips.last).not_to_have_text(outside[0])
    # The spend stacks the 7 dearest models and the rest as one bar: a legend of 8 names.
    spend = page.get_by_test_id("card-spend-per-day-(usd)").locator(".recharts-legend-item")
    await expect(spend).to_have_count(8)
    await expect(spend.filter(has_text=re.compile(r"^\d+ other models$"))).to_have_count(1)


@pytest.mark.parametrize("view", list(VIEWS))
async def test_every_tab_at_scale_is_shot_for_review(
    scaled: tuple[int, ProductProcess, list[str]], page: Page, view: str
) -> None:
    n, server, _ = scaled
    width, height = VIEWS[view]
    await page.set_viewport_size({"width": width, "height": height})
    for tab in TABS:
        await page.goto(f"{server.url}/insights/{tab}")
        await expect(page.locator(".recharts-surface").first).to_be_attached(timeout=20_000)
        await expect(page.get_by_test_id("insights-notice")).to_have_count(0)
        await page.wait_for_timeout(800)  # the charts' layout settles
        await screenshot(page, f"insights-{n}-{tab}-{view}")
