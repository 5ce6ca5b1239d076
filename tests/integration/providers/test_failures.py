"""How every network provider fails: the error it raises, and that the connection is released.

Each test runs against the fake of every vendor (OpenAI-compatible, Ollama, Gemini).
"""

from __future__ import annotations

import asyncio

import aiohttp
import pytest

from arena_api.core.errors import (
    ProviderHTTPError,
    ProviderRateLimited,
    ProviderStreamError,
    ProviderTimeout,
)
from arena_api.providers import make_session
from tests.integration.providers._streams import (
    CONVERSATION,
    drain_until_error,
    leaked_names,
    model,
    text_of,
)
from tests.integration.providers.conftest import RELEASE_WAIT_S, FakeVendor
from tests.support import free_port


async def test_rate_limited_answer_raises_provider_rate_limited(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("rate-limited"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert chunks == []
    assert isinstance(error, ProviderRateLimited)
    assert error.status == 429


async def test_server_error_raises_http_error_with_status_500(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("server-error"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert chunks == []
    assert type(error) is ProviderHTTPError
    assert error.status == 500


async def test_unknown_model_raises_http_error_with_status_404(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("no-such-model"), CONVERSATION)

    _, error = await drain_until_error(stream)

    assert type(error) is ProviderHTTPError
    assert error.status == 404


async def test_mid_stream_disconnect_raises_stream_error_after_the_first_tokens(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("disconnect"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert text_of(chunks) == "Hello from"
    assert isinstance(error, ProviderStreamError)


async def test_stream_ending_without_its_end_marker_raises_stream_error(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("truncated"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert text_of(chunks) == "Hello from"
    assert isinstance(error, ProviderStreamError)


async def test_error_object_inside_the_stream_raises_stream_error(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("error-line"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert text_of(chunks) == "Hello"
    assert isinstance(error, ProviderStreamError)


async def test_line_that_is_not_json_raises_stream_error(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("garbage"), CONVERSATION)

    chunks, error = await drain_until_error(stream)

    assert text_of(chunks) == "Hello"
    assert isinstance(error, ProviderStreamError)
    assert "could not be parsed" in str(error)


async def test_unreachable_endpoint_raises_stream_error(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = vendor.provider(http, url=f"http://127.0.0.1:{free_port()}")

    _, error = await drain_until_error(provider.stream(model("ok"), CONVERSATION))

    assert isinstance(error, ProviderStreamError)
    assert "could not be reached" in str(error)


async def test_stall_beyond_the_client_read_timeout_raises_provider_timeout(
    vendor: FakeVendor,
) -> None:
    async with make_session(connect_timeout_s=5.0, read_timeout_s=0.3) as http:
        stream = vendor.provider(http).stream(model("stall"), CONVERSATION)

        chunks, error = await drain_until_error(stream)

    assert text_of(chunks) == "Hello"
    assert isinstance(error, ProviderTimeout)


async def test_closing_a_stalled_stream_releases_the_connection(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    stream = vendor.provider(http).stream(model("stall"), CONVERSATION)
    first = await anext(stream)
    with pytest.raises(TimeoutError):
        await asyncio.wait_for(anext(stream), 0.5)

    await stream.aclose()  # type: ignore[attr-defined]

    assert first.text == "Hello"
    assert await asyncio.to_thread(vendor.recorder.disconnected.wait, RELEASE_WAIT_S)


async def test_cancelling_the_consuming_task_releases_the_connection(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    first_token = asyncio.Event()

    async def consume() -> None:
        async for _ in vendor.provider(http).stream(model("stall"), CONVERSATION):
            first_token.set()

    task = asyncio.create_task(consume())
    await asyncio.wait_for(first_token.wait(), RELEASE_WAIT_S)

    task.cancel()

    with pytest.raises(asyncio.CancelledError):
        await task
    assert await asyncio.to_thread(vendor.recorder.disconnected.wait, RELEASE_WAIT_S)


@pytest.mark.parametrize(
    "behaviour",
    [
        "rate-limited",
        "server-error",
        "no-such-model",
        "disconnect",
        "truncated",
        "error-line",
        "garbage",
    ],
)
async def test_no_error_message_names_the_model_or_the_vendor(
    vendor: FakeVendor, http: aiohttp.ClientSession, behaviour: str
) -> None:
    """The fakes' own error bodies name the model and the vendor; ours must not repeat them."""
    entry = model(behaviour, provider=vendor.key)

    _, error = await drain_until_error(vendor.provider(http).stream(entry, CONVERSATION))

    assert error is not None
    assert leaked_names(str(error), entry) == []
