"""Fake vendor servers on loopback ports, and a provider of each kind pointed at its fake."""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Iterator
from dataclasses import dataclass

import aiohttp
import pytest
from starlette.applications import Starlette

from arena_api.core.ports import ModelProvider
from arena_api.providers import (
    GoogleProvider,
    OllamaProvider,
    OpenAICompatibleProvider,
    make_session,
)
from tests.fakes import gemini_server, ollama_server, openai_server
from tests.fakes._recording import Recorder
from tests.support import ServerThread, free_port

API_KEY = "test-key-123"


@dataclass(frozen=True)
class FakeVendor:
    """A running fake vendor server and how to point a provider at a URL of that vendor."""

    key: str
    url: str
    recorder: Recorder
    connect: Callable[[str, aiohttp.ClientSession], ModelProvider]

    def provider(self, http: aiohttp.ClientSession, url: str | None = None) -> ModelProvider:
        """A provider talking to this fake (or to ``url``) through ``http``."""
        return self.connect(url or self.url, http)


def _connect_openai(url: str, http: aiohttp.ClientSession) -> ModelProvider:
    return OpenAICompatibleProvider("openai", f"{url}/v1", API_KEY, http)


def _connect_ollama(url: str, http: aiohttp.ClientSession) -> ModelProvider:
    return OllamaProvider(url, http)


def _connect_google(url: str, http: aiohttp.ClientSession) -> ModelProvider:
    return GoogleProvider(url, API_KEY, http)


def _serve(
    key: str,
    create_app: Callable[[Recorder], Starlette],
    connect: Callable[[str, aiohttp.ClientSession], ModelProvider],
) -> Iterator[FakeVendor]:
    recorder = Recorder()
    with ServerThread(create_app(recorder), free_port()) as server:
        yield FakeVendor(key, server.url, recorder, connect)


@pytest.fixture(scope="module")
def _openai_server() -> Iterator[FakeVendor]:
    yield from _serve("openai", openai_server.create_app, _connect_openai)


@pytest.fixture(scope="module")
def _ollama_server() -> Iterator[FakeVendor]:
    yield from _serve("ollama", ollama_server.create_app, _connect_ollama)


@pytest.fixture(scope="module")
def _gemini_server() -> Iterator[FakeVendor]:
    yield from _serve("google", gemini_server.create_app, _connect_google)


@pytest.fixture
def openai_fake(_openai_server: FakeVendor) -> FakeVendor:
    """The fake OpenAI endpoint, its recorder emptied for this test."""
    _openai_server.recorder.clear()
    return _openai_server


@pytest.fixture
def ollama_fake(_ollama_server: FakeVendor) -> FakeVendor:
    """The fake Ollama server, its recorder emptied for this test."""
    _ollama_server.recorder.clear()
    return _ollama_server


@pytest.fixture
def gemini_fake(_gemini_server: FakeVendor) -> FakeVendor:
    """The fake Gemini API, its recorder emptied for this test."""
    _gemini_server.recorder.clear()
    return _gemini_server


@pytest.fixture
async def http() -> AsyncIterator[aiohttp.ClientSession]:
    """The product's session, with a read timeout well above the tests' own waits."""
    async with make_session(read_timeout_s=10.0) as session:
        yield session


#: How long a test waits for a fake to see its connection released.
RELEASE_WAIT_S = 5.0


@pytest.fixture(
    params=[
        pytest.param("openai_fake", id="openai-compatible"),
        pytest.param("ollama_fake", id="ollama"),
        pytest.param("gemini_fake", id="google"),
    ]
)
def vendor(request: pytest.FixtureRequest) -> FakeVendor:
    fake: FakeVendor = request.getfixturevalue(request.param)
    return fake
