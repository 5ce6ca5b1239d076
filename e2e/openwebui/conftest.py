"""A real Open WebUI 0.12.4 (from PyPI) connected to the product's ``/v1``, and a browser on it.

Nothing here runs unless ``ARENA_OPENWEBUI_BIN`` names the ``open-webui`` executable
(``bash e2e/openwebui/setup.sh`` installs it and prints the path); the test module skips itself
otherwise, so the default ``make test`` never starts Open WebUI.

Open WebUI runs offline with authentication off (one automatic admin user), its data in a
temporary folder, and its default background "task" requests (title, tags, follow-ups) left on:
they reach our server as they would in a real install.
"""

from __future__ import annotations

import os
import signal
import subprocess
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Iterator
from dataclasses import dataclass
from pathlib import Path

import httpx
import pytest
from playwright.async_api import Browser, BrowserContext, Page, ViewportSize, async_playwright

from e2e.conftest import _serving
from tests.support import CHROMIUM, CHROMIUM_ARGS, ProductProcess, free_port

OPENWEBUI_BIN_ENV = "ARENA_OPENWEBUI_BIN"
VIEWPORT: ViewportSize = {"width": 1440, "height": 900}
START_TIMEOUT = 300.0
# All Open WebUI inherits from our environment: never our DATABASE_URL, PORT or keys.
_INHERITED = ("PATH", "HOME", "LANG", "LC_ALL", "TZ", "TMPDIR")

# Offline and quiet: nothing fetched from the internet at start or on a page load. Everything else
# keeps Open WebUI's defaults, so that our server sees what a real install sends.
_OFFLINE_ENV = {
    "OFFLINE_MODE": "true",
    "HF_HUB_OFFLINE": "1",
    "ENABLE_VERSION_UPDATE_CHECK": "false",
    "ANONYMIZED_TELEMETRY": "false",
    "SCARF_NO_ANALYTICS": "true",
    "DO_NOT_TRACK": "true",
    # No local sentence-transformers model for RAG (it is not downloaded offline, so loading it
    # only logs an error); chats never use embeddings.
    "RAG_EMBEDDING_ENGINE": "openai",
}


@dataclass(frozen=True)
class OpenWebUI:
    """A running Open WebUI: where it answers and where it logs."""

    url: str
    log: Path


@pytest.fixture(scope="session")
def arena_server(
    fresh_database: Callable[[], str], tmp_path_factory: pytest.TempPathFactory
) -> Iterator[ProductProcess]:
    """``arena serve`` on the mock roster, streaming slowly enough (30 tokens/s) to be seen."""
    yield from _serving(
        fresh_database,
        tmp_path_factory.mktemp("arena-for-openwebui"),
        ARENA_MOCK_TOKENS_PER_SECOND="30",
        ARENA_MOCK_TOKENS="60",
    )


def _openwebui_env(arena_url: str, data_dir: Path) -> dict[str, str]:
    return {
        **{name: os.environ[name] for name in _INHERITED if name in os.environ},
        **_OFFLINE_ENV,
        "DATA_DIR": str(data_dir),
        "WEBUI_SECRET_KEY": "arena-e2e-openwebui-secret",
        "WEBUI_AUTH": "False",
        "ENABLE_OLLAMA_API": "False",
        "ENABLE_OPENAI_API": "True",
        "OPENAI_API_BASE_URL": f"{arena_url}/v1",
        "OPENAI_API_KEY": "x",
        "ENABLE_FORWARD_USER_INFO_HEADERS": "true",
    }


def _wait_healthy(process: subprocess.Popen[bytes], url: str, log: Path, timeout: float) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if process.poll() is not None:
            raise RuntimeError(f"open-webui exited:\n{log.read_text(errors='replace')[-3000:]}")
        try:
            if httpx.get(f"{url}/health", timeout=2).status_code == 200:
                return
        except httpx.HTTPError:
            pass
        time.sleep(0.5)
    raise RuntimeError(
        f"open-webui never became healthy:\n{log.read_text(errors='replace')[-3000:]}"
    )


def _stop(process: subprocess.Popen[bytes]) -> None:
    if process.poll() is not None:
        return
    process.send_signal(signal.SIGTERM)
    try:
        process.wait(timeout=30)
    except subprocess.TimeoutExpired:
        process.kill()
        process.wait()


@pytest.fixture(scope="session")
def openwebui(
    arena_server: ProductProcess, tmp_path_factory: pytest.TempPathFactory
) -> Iterator[OpenWebUI]:
    """Open WebUI 0.12.4 on a loopback port with one OpenAI connection: our ``/v1``."""
    executable = os.environ[OPENWEBUI_BIN_ENV]
    folder = tmp_path_factory.mktemp("openwebui")
    port = free_port()
    server = OpenWebUI(url=f"http://127.0.0.1:{port}", log=folder / "open-webui.log")
    with server.log.open("ab") as log:
        # cwd: where `open-webui serve` would write a generated secret key file.
        process = subprocess.Popen(
            [executable, "serve", "--port", str(port), "--host", "127.0.0.1"],
            cwd=folder,
            env=_openwebui_env(arena_server.url, folder / "data"),
            stdout=log,
            stderr=subprocess.STDOUT,
        )
    try:
        _wait_healthy(process, server.url, server.log, START_TIMEOUT)
        yield server
    finally:
        _stop(process)


@pytest.fixture(scope="session")
async def owui_browser() -> AsyncIterator[Browser]:
    """Debian's chromium, headless."""
    async with async_playwright() as playwright:
        browser = await playwright.chromium.launch(
            executable_path=CHROMIUM, headless=True, args=CHROMIUM_ARGS
        )
        yield browser
        await browser.close()


NewPage = Callable[[], Awaitable[Page]]


@pytest.fixture(scope="module")
async def new_page(owui_browser: Browser) -> AsyncIterator[NewPage]:
    """Opens a page in a fresh context (own storage) at a desktop size; all closed at the end
    of the module, so that a chat can span several tests of it."""
    contexts: list[BrowserContext] = []

    async def open_page() -> Page:
        context = await owui_browser.new_context(viewport=VIEWPORT)
        contexts.append(context)
        return await context.new_page()

    yield open_page
    for context in contexts:
        await context.close()
