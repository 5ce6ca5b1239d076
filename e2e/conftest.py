"""The whole product on one port (``arena serve``), and a real browser (Debian's chromium)."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path

import pytest
from playwright.async_api import Browser, async_playwright

from tests.support import ProductProcess, free_port

CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-quic",
    "--no-first-run",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
]


@pytest.fixture(scope="session")
def product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """``arena serve`` in production single-port mode against a database of its own."""
    folder: Path = tmp_path_factory.mktemp("product")
    env = {
        "DATABASE_URL": fresh_database(),
        "ARENA_DATA_DIR": str(folder / "data"),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
    }
    server = ProductProcess(env, free_port(), folder / "serve.log").start()
    yield server
    server.stop()


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        await browser.close()
