"""The whole product on one port (``arena serve``), and a real browser (Debian's chromium).

Screenshots taken by the tests go to ``test-results/`` (ignored by git) for a reviewer to see.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
from collections.abc import AsyncIterator, Callable, Iterator
from pathlib import Path
from typing import Any

import pytest
from playwright.async_api import Browser, Page, async_playwright

from tests.fakes._recording import Recorder
from tests.fakes.openai_server import create_app
from tests.support import (
    CHROMIUM,
    CHROMIUM_ARGS,
    ROOT,
    ProductProcess,
    ServerThread,
    free_port,
)

ARTEFACTS = ROOT / "test-results"


def _serving(
    fresh_database: Callable[[], str], folder: Path, **env: str
) -> Iterator[ProductProcess]:
    """A session fixture's product: started, yielded, and stopped however its tests end."""
    base = {
        "DATABASE_URL": fresh_database(),
        "ARENA_DATA_DIR": str(folder / "data"),
        "ARENA_MOCK_PROVIDER": "1",
        "ARENA_ALLOW_DEV_SECRET": "1",
        "ARENA_RATING_WORKER": "off",
        "ARENA_MOCK_TOKENS_PER_SECOND": "200",
        "ARENA_MOCK_TOKENS": "40",
    }
    server = ProductProcess({**base, **env}, free_port(), folder / "serve.log").start()
    try:
        yield server
    finally:
        server.stop()


@pytest.fixture(scope="session")
def product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """``arena serve`` in production single-port mode with the mock roster."""
    yield from _serving(fresh_database, tmp_path_factory.mktemp("product"))


@pytest.fixture(scope="session")
def voter_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The mock roster for the accessibility and voter-experience tests: their votes stay out
    of the leaderboard the arena tests read."""
    yield from _serving(fresh_database, tmp_path_factory.mktemp("voter"))


@pytest.fixture(scope="session")
def empty_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """A product no test votes on: what a fresh install shows."""
    yield from _serving(fresh_database, tmp_path_factory.mktemp("empty"))


@pytest.fixture(scope="session")
def demo_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """A product whose database holds demo history and one rating fit of it."""
    url = fresh_database()
    env = {**os.environ, "DATABASE_URL": url, "ARENA_MOCK_PROVIDER": "1"}
    for command in (["db", "seed-demo", "--votes", "3000", "--days", "10"], ["rate", "--style"]):
        subprocess.run(
            [sys.executable, "-m", "arena_api", *command],
            cwd=ROOT,
            env=env,
            check=True,
            capture_output=True,
            timeout=300,
        )
    yield from _serving(lambda: url, tmp_path_factory.mktemp("demo"))


@pytest.fixture(scope="session")
def rated_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The rating process runs beside the server and refits within 2 s of a vote."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("rated"),
        ARENA_RATING_WORKER="embedded",
        RATING_MIN_INTERVAL_S=str(RATED_MIN_INTERVAL_S),
    )


RATED_MIN_INTERVAL_S = 2


@pytest.fixture(scope="session")
def slow_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """The mock roster answering slowly (20 tokens/s, 400 tokens): time to press stop."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("slow"),
        ARENA_MOCK_TOKENS_PER_SECOND="20",
        ARENA_MOCK_TOKENS="400",
    )


@pytest.fixture(scope="session")
def shadow_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """Shadow exposure: the incumbent answers alone and the round cannot be voted on."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("shadow"),
        ARENA_EXPOSURE="shadow",
        ARENA_DEFAULT_MODEL="mock-aurora",
        ARENA_MOCK_TOKENS_PER_SECOND="20",
        ARENA_MOCK_TOKENS="60",
    )


@pytest.fixture(scope="session")
def unplayable_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """A bare start: the shipped roster's mock models, without the mock provider that answers
    for them, so no model can play (as a plain ``docker run`` with no roster or key)."""
    yield from _serving(
        fresh_database, tmp_path_factory.mktemp("unplayable"), ARENA_MOCK_PROVIDER="0"
    )


#: What ``demo_mode_product`` offers as example prompts (a visit shows four of them).
OPERATOR_EXAMPLES = tuple(f"Operator example number {n}: say hello." for n in range(1, 7))


@pytest.fixture(scope="session")
def demo_mode_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """``ARENA_DEMO=1`` (the mock models, a banner on every page) and the operator's own
    example prompts, from a file."""
    folder = tmp_path_factory.mktemp("demo-mode")
    examples = folder / "examples.txt"
    examples.write_text("# ours\n" + "\n".join(OPERATOR_EXAMPLES) + "\n")
    yield from _serving(
        fresh_database,
        folder,
        ARENA_MOCK_PROVIDER="0",
        ARENA_DEMO="1",
        ARENA_EXAMPLE_PROMPTS=str(examples),
    )


#: The passphrase of ``private_product``.
PASSPHRASE = "correct horse battery"


@pytest.fixture(scope="session")
def private_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """A private arena: ``ARENA_PASSPHRASE`` set, so every page asks for it first."""
    yield from _serving(
        fresh_database, tmp_path_factory.mktemp("private"), ARENA_PASSPHRASE=PASSPHRASE
    )


def _on_fake_openai(
    fresh_database: Callable[[], str], folder: Path, models: dict[str, str]
) -> Iterator[ProductProcess]:
    """The product with a roster of ``models`` (display name: the fake's model id, whose
    ``--behaviour`` suffix says how it answers) served by a local fake OpenAI endpoint."""
    roster = folder / "models.yaml"
    roster.write_text(
        "models:\n"
        + "".join(
            f"  - {{display_name: {name}, provider: openai, provider_model_id: {model_id}}}\n"
            for name, model_id in models.items()
        )
    )
    with ServerThread(create_app(Recorder()), free_port()) as vendor:
        yield from _serving(
            fresh_database,
            folder,
            ARENA_MODELS_FILE=str(roster),
            ARENA_MOCK_PROVIDER="0",
            OPENAI_BASE_URL=f"{vendor.url}/v1",
            OPENAI_API_KEY="sk-test",
        )


@pytest.fixture(scope="session")
def hostile_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """One model answers with hostile HTML and ``javascript:`` links, the other fails before
    its first token."""
    yield from _on_fake_openai(
        fresh_database,
        tmp_path_factory.mktemp("hostile"),
        {"Evil": "evil--hostile", "Broken": "broken--server-error"},
    )


@pytest.fixture(scope="session")
def markdown_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """Both models stream ``MARKDOWN_ANSWER`` a few characters at a time."""
    yield from _on_fake_openai(
        fresh_database,
        tmp_path_factory.mktemp("markdown"),
        {"Writer": "writer--markdown", "Scribe": "scribe--markdown"},
    )


@pytest.fixture(scope="session")
def prose_product(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """Both models stream ``PROSE_ANSWER``: a long line of plain words, then a paragraph."""
    yield from _on_fake_openai(
        fresh_database,
        tmp_path_factory.mktemp("prose"),
        {"Teller": "teller--prose", "Bard": "bard--prose"},
    )


@pytest.fixture(scope="session")
async def browser() -> AsyncIterator[Browser]:
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        await browser.close()


@contextlib.asynccontextmanager
async def watched_page(browser: Browser, **context: Any) -> AsyncIterator[Page]:
    """A page in a fresh browser context (own storage) made with ``context``, failing on any
    console error."""
    opened = await browser.new_context(**context)
    page = await opened.new_page()
    errors: list[str] = []
    page.on("console", lambda m: errors.append(m.text) if m.type == "error" else None)
    page.on("pageerror", lambda e: errors.append(str(e)))
    yield page
    await opened.close()
    assert not errors, f"browser console errors: {errors}"


_FAILED = pytest.StashKey[bool]()


@pytest.hookimpl(wrapper=True)
def pytest_runtest_makereport(item: pytest.Item) -> Iterator[pytest.TestReport]:
    """Marks a test whose body failed, for its ``page`` to describe what the browser showed."""
    report: pytest.TestReport = yield
    if report.when == "call" and report.failed:
        item.stash[_FAILED] = True
    return report


async def _describe_failure(page: Page, request: pytest.FixtureRequest) -> None:
    """What a failed test's page showed (its address, its text, a screenshot under
    ``test-results/failed-*.png``) and the end of each product's log, printed into the report:
    a failure in CI can then be read without running it again."""
    name = request.node.name.replace("/", "_")[:120]
    with contextlib.suppress(Exception):
        ARTEFACTS.mkdir(exist_ok=True)
        await page.screenshot(path=str(ARTEFACTS / f"failed-{name}.png"), full_page=True)
    with contextlib.suppress(Exception):
        text = await page.inner_text("body", timeout=2_000)
        print(f"--- the page at {page.url} showed:\n{text[:3_000]}")
    for value in request.node.funcargs.values():
        if isinstance(value, ProductProcess) and value.log.exists():
            print(f"--- the end of {value.url}'s log:\n{value.log.read_text()[-3_000:]}")


@pytest.fixture
async def page(browser: Browser, request: pytest.FixtureRequest) -> AsyncIterator[Page]:
    """A fresh browser context per test (own storage), failing on any console error. When the
    test fails, what the page showed is printed into its report."""
    async with watched_page(
        browser,
        viewport={"width": 1400, "height": 900},
        permissions=["clipboard-read", "clipboard-write"],
    ) as page:
        yield page
        if request.node.stash.get(_FAILED, False):
            await _describe_failure(page, request)


async def screenshot(page: Page, name: str) -> None:
    ARTEFACTS.mkdir(exist_ok=True)
    await page.screenshot(path=str(ARTEFACTS / f"{name}.png"), full_page=True)
