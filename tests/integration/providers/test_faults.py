"""Each fault a model endpoint can have becomes the error with its stable code, and the
connection is let go; retries happen before the first token only.

Each test runs against the fake of every vendor (OpenAI-compatible, Ollama, Gemini).
"""

from __future__ import annotations

import asyncio
import errno
import time
import tracemalloc
from collections.abc import Callable

import aiohttp
import pytest

from arena_api.core.errors import (
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimited,
    ProviderReset,
    ProviderTimeout,
    ProviderTooLarge,
    ProviderUnreachable,
)
from arena_api.core.slot_errors import SLOT_ERROR_MESSAGES
from arena_api.providers import build_registry, make_session
from arena_api.providers._retry import RetryingProvider, RetryPolicy
from arena_api.settings import load_settings
from tests.integration.providers._streams import (
    CONVERSATION,
    drain,
    drain_until_error,
    leaked_names,
    model,
    text_of,
)
from tests.integration.providers.conftest import RELEASE_WAIT_S, FakeVendor
from tests.support import free_port


async def _until(condition: Callable[[], bool], timeout_s: float = RELEASE_WAIT_S) -> bool:
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        if condition():
            return True
        await asyncio.sleep(0.02)
    return False


@pytest.mark.parametrize(
    ("behaviour", "code", "text"),
    [
        pytest.param("rate-limited", "provider_rate_limited", "", id="429"),
        pytest.param("rate-limited-retry-after", "provider_rate_limited", "", id="429-retry-after"),
        pytest.param("server-error", "provider_unavailable", "", id="500"),
        pytest.param("bad-gateway", "provider_unavailable", "", id="502"),
        pytest.param("unavailable", "provider_unavailable", "", id="503"),
        pytest.param("no-such-model", "provider_rejected", "", id="404"),
        pytest.param("reset", "provider_reset", "", id="reset-before-first-token"),
        pytest.param("reset-after-token", "provider_reset", "Hello", id="reset-after-token"),
        pytest.param("disconnect", "provider_reset", "Hello from", id="dropped-mid-body"),
        pytest.param("malformed", "provider_bad_response", "", id="malformed-first-event"),
        pytest.param("garbage", "provider_bad_response", "Hello", id="malformed-after-token"),
        pytest.param("truncated", "provider_bad_response", "Hello from", id="no-end-marker"),
        pytest.param("html", "provider_bad_response", "", id="text-html-200"),
        pytest.param("error-line", "provider_error", "Hello", id="error-event"),
        pytest.param("oversized", "provider_too_large", "Hello", id="oversized-event"),
    ],
)
async def test_each_fault_raises_the_error_of_its_code(
    vendor: FakeVendor, http: aiohttp.ClientSession, behaviour: str, code: str, text: str
) -> None:
    entry = model(behaviour, provider=vendor.key)

    chunks, error = await drain_until_error(vendor.provider(http).stream(entry, CONVERSATION))

    assert error is not None and error.code == code
    assert code in SLOT_ERROR_MESSAGES
    assert text_of(chunks) == text
    assert leaked_names(str(error), entry) == []


async def test_a_reset_is_a_real_tcp_reset(vendor: FakeVendor, http: aiohttp.ClientSession) -> None:
    _, error = await drain_until_error(vendor.provider(http).stream(model("reset"), CONVERSATION))

    assert isinstance(error, ProviderReset)
    assert getattr(error.__cause__, "errno", None) == errno.ECONNRESET


async def test_retry_after_in_seconds_and_as_a_date_is_read(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = vendor.provider(http)

    _, seconds = await drain_until_error(provider.stream(model("rate-limited-retry-after"), []))
    _, date = await drain_until_error(provider.stream(model("rate-limited-retry-date"), []))
    _, none = await drain_until_error(provider.stream(model("rate-limited"), []))

    assert isinstance(seconds, ProviderRateLimited) and seconds.retry_after_s == 1.0
    assert isinstance(date, ProviderRateLimited)
    assert date.retry_after_s is not None and 0.0 <= date.retry_after_s <= 2.5
    assert isinstance(none, ProviderRateLimited) and none.retry_after_s is None


async def test_a_refused_connection_raises_provider_unreachable(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    provider = vendor.provider(http, url=f"http://127.0.0.1:{free_port()}")

    _, error = await drain_until_error(provider.stream(model("ok"), CONVERSATION))

    assert isinstance(error, ProviderUnreachable) and error.code == "provider_unreachable"


@pytest.mark.parametrize("behaviour", ["silent", "drip"])
async def test_silence_and_a_slow_drip_end_by_the_read_timeout_and_release_the_connection(
    vendor: FakeVendor, behaviour: str
) -> None:
    async with make_session(connect_timeout_s=5.0, read_timeout_s=0.3) as http:
        stream = vendor.provider(http).stream(model(behaviour), CONVERSATION)

        chunks, error = await drain_until_error(stream)

    assert isinstance(error, ProviderTimeout)
    assert text_of(chunks) == ("Hello" if behaviour == "drip" else "")
    assert await _until(lambda: vendor.recorder.open_streams == 0)
    assert f"secretlm-7b--{behaviour}" in vendor.recorder.disconnected_models


async def test_an_oversized_event_is_refused_before_it_is_read_whole(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    """Bounded memory: what this process allocated at its peak (the fake included, which sends
    one shared piece over and over) stays far below the event's size."""
    stream = vendor.provider(http).stream(model("oversized"), CONVERSATION)
    tracemalloc.start()

    try:
        _, error = await drain_until_error(stream)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()

    assert isinstance(error, ProviderTooLarge)
    assert peak < 4 << 20  # the 1 MiB cap and a read or two, whatever the event's size
    assert await _until(lambda: vendor.recorder.open_streams == 0)
    assert "secretlm-7b--oversized" in vendor.recorder.disconnected_models


# -- retries -------------------------------------------------------------------------------------


def _retrying(
    vendor: FakeVendor, http: aiohttp.ClientSession, retries: int = 2, timeout_s: float = 10.0
) -> RetryingProvider:
    policy = RetryPolicy(retries=retries, first_token_timeout_s=timeout_s, base_s=0.05)
    return RetryingProvider(vendor.provider(http), policy)


@pytest.mark.parametrize(
    "behaviour",
    ["unavailable-twice", "reset-twice", "bad-gateway-twice", "rate-limited-twice"],
)
async def test_two_failures_before_the_first_token_are_retried_into_a_whole_answer(
    vendor: FakeVendor, http: aiohttp.ClientSession, behaviour: str
) -> None:
    entry = model(behaviour)

    chunks = await drain(_retrying(vendor, http).stream(entry, CONVERSATION))

    assert text_of(chunks) == "Hello from the fake."
    assert vendor.recorder.requests_for(entry.provider_model_id) == 3


async def test_retries_exhausted_give_the_last_error(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("unavailable")

    _, error = await drain_until_error(_retrying(vendor, http).stream(entry, CONVERSATION))

    assert isinstance(error, ProviderHTTPError) and error.code == "provider_unavailable"
    assert vendor.recorder.requests_for(entry.provider_model_id) == 3


async def test_a_retry_after_of_one_second_is_waited(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    entry = model("rate-limited-retry-after")
    started = time.monotonic()

    _, error = await drain_until_error(
        _retrying(vendor, http, retries=1).stream(entry, CONVERSATION)
    )

    assert isinstance(error, ProviderRateLimited)
    assert vendor.recorder.requests_for(entry.provider_model_id) == 2
    assert 0.95 <= time.monotonic() - started < 2.5


@pytest.mark.parametrize("behaviour", ["reset-after-token", "disconnect", "error-line"])
async def test_a_failure_after_the_first_token_is_never_retried(
    vendor: FakeVendor, http: aiohttp.ClientSession, behaviour: str
) -> None:
    entry = model(behaviour)

    chunks, error = await drain_until_error(_retrying(vendor, http).stream(entry, CONVERSATION))

    assert chunks and isinstance(error, ProviderError)
    assert vendor.recorder.requests_for(entry.provider_model_id) == 1


@pytest.mark.parametrize("behaviour", ["no-such-model", "malformed", "html"])
async def test_a_failure_no_retry_can_mend_is_not_retried(
    vendor: FakeVendor, http: aiohttp.ClientSession, behaviour: str
) -> None:
    entry = model(behaviour)

    _, error = await drain_until_error(_retrying(vendor, http).stream(entry, CONVERSATION))

    assert error is not None
    assert vendor.recorder.requests_for(entry.provider_model_id) == 1


async def test_no_retry_starts_after_the_first_token_deadline(
    vendor: FakeVendor, http: aiohttp.ClientSession
) -> None:
    """Retry-After: 1 cannot fit in a 0.5 s deadline: the error comes at once."""
    entry = model("rate-limited-retry-after")
    started = time.monotonic()

    _, error = await drain_until_error(
        _retrying(vendor, http, retries=5, timeout_s=0.5).stream(entry, CONVERSATION)
    )

    assert isinstance(error, ProviderRateLimited)
    assert vendor.recorder.requests_for(entry.provider_model_id) == 1
    assert time.monotonic() - started < 0.5


async def test_the_registry_retries_every_network_provider_as_configured(
    http: aiohttp.ClientSession,
) -> None:
    settings = load_settings(
        {
            "ARENA_MOCK_PROVIDER": "1",
            "OPENAI_API_KEY": "sk-test",
            "GOOGLE_API_KEY": "test-key",
            "VLLM_BASE_URL": "http://127.0.0.1:9/v1",
            "ARENA_PROVIDER_RETRIES": "3",
            "ARENA_SLOT_TIMEOUT_S": "7",
        }
    )

    registry = build_registry(settings, http)

    keys = ("openai", "google", "vllm", "ollama")
    network = [p for k in keys if isinstance(p := registry.resolve(k), RetryingProvider)]
    assert len(network) == len(keys)
    assert {(p.policy.retries, p.policy.first_token_timeout_s) for p in network} == {(3, 7.0)}
    assert not isinstance(registry.resolve("mock"), RetryingProvider)
