"""The retry policy: its jittered schedule, ``Retry-After``, the first-token deadline, and that
nothing is retried once a chunk was yielded (an in-memory provider, a fake clock and sleep)."""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Sequence
from datetime import UTC, datetime, timedelta
from email.utils import format_datetime

import pytest

from arena_api.core.errors import (
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimited,
    ProviderReportedError,
    ProviderReset,
    ProviderStreamError,
    ProviderTimeout,
    ProviderTooLarge,
    ProviderUnreachable,
)
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk
from arena_api.providers._retry import (
    BACKOFF_CAP_S,
    RETRY_AFTER_CAP_S,
    RetryingProvider,
    RetryPolicy,
    is_retryable,
    parse_retry_after,
)

NOW = datetime(2026, 12, 4, 12, 0, 0, tzinfo=UTC)
MODEL = ModelEntry(uuid.uuid4(), "Model", "fake", "model")
SEEDS = range(200)


def _policy(retries: int = 2, timeout_s: float = 60.0) -> RetryPolicy:
    return RetryPolicy(retries=retries, first_token_timeout_s=timeout_s)


# -- the schedule ------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("retry", "bounds"),
    [
        pytest.param(1, (0.25, 0.5), id="first"),
        pytest.param(2, (0.5, 1.0), id="second"),
        pytest.param(3, (1.0, 2.0), id="third"),
        pytest.param(5, (4.0, 8.0), id="fifth"),
        pytest.param(9, (BACKOFF_CAP_S / 2, BACKOFF_CAP_S), id="capped"),
    ],
)
def test_backoff_doubles_per_retry_up_to_its_cap(retry: int, bounds: tuple[float, float]) -> None:
    assert _policy().backoff_bounds(retry) == bounds


@pytest.mark.parametrize("retry", [1, 2, 3, 6])
def test_every_jittered_delay_lies_within_its_retry_bounds(retry: int) -> None:
    low, high = _policy().backoff_bounds(retry)

    delays = [_policy().delay_s(retry, None, random.Random(seed)) for seed in SEEDS]

    assert all(low <= delay <= high for delay in delays)
    assert max(delays) - min(delays) > (high - low) / 2  # jittered, not a constant


def test_a_retry_after_longer_than_the_backoff_is_waited_in_full() -> None:
    delays = [_policy().delay_s(1, 3.0, random.Random(seed)) for seed in SEEDS]

    assert set(delays) == {3.0}


def test_a_retry_after_shorter_than_the_backoff_leaves_the_backoff() -> None:
    low, high = _policy().backoff_bounds(3)

    delays = [_policy().delay_s(3, 0.1, random.Random(seed)) for seed in SEEDS]

    assert all(low <= delay <= high for delay in delays)


def test_a_huge_retry_after_is_capped() -> None:
    assert _policy().delay_s(1, 86_400.0, random.Random(0)) == RETRY_AFTER_CAP_S


def test_the_policy_refuses_a_negative_retry_count() -> None:
    with pytest.raises(ValueError):
        RetryPolicy(retries=-1, first_token_timeout_s=1.0)


# -- Retry-After ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "seconds"),
    [
        pytest.param("1", 1.0, id="seconds"),
        pytest.param(" 120 ", 120.0, id="padded"),
        pytest.param("0", 0.0, id="zero"),
        pytest.param(format_datetime(NOW + timedelta(seconds=30), usegmt=True), 30.0, id="date"),
        pytest.param(format_datetime(NOW - timedelta(seconds=30), usegmt=True), 0.0, id="past"),
        pytest.param("Fri, 04 Dec 2026 12:00:05 GMT", 5.0, id="imf-fixdate"),
        pytest.param(None, None, id="absent"),
        pytest.param("", None, id="empty"),
        pytest.param("soon", None, id="words"),
        pytest.param("-3", None, id="negative"),
        pytest.param("nan", None, id="nan"),
        pytest.param("inf", None, id="infinite"),
    ],
)
def test_retry_after_is_read_as_seconds_or_an_http_date(
    value: str | None, seconds: float | None
) -> None:
    assert parse_retry_after(value, now=NOW) == seconds


# -- what is retried -----------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("error", "retryable"),
    [
        pytest.param(ProviderRateLimited("429", 429), True, id="429"),
        pytest.param(ProviderHTTPError("500", 500), True, id="500"),
        pytest.param(ProviderHTTPError("502", 502), True, id="502"),
        pytest.param(ProviderHTTPError("503", 503), True, id="503"),
        pytest.param(ProviderHTTPError("504", 504), True, id="504"),
        pytest.param(ProviderHTTPError("501", 501), False, id="501"),
        pytest.param(ProviderHTTPError("404", 404), False, id="404"),
        pytest.param(ProviderHTTPError("401", 401), False, id="401"),
        pytest.param(ProviderUnreachable("refused"), True, id="refused"),
        pytest.param(ProviderReset("reset"), True, id="reset"),
        pytest.param(ProviderTimeout("timeout"), False, id="timeout"),
        pytest.param(ProviderStreamError("garbage"), False, id="bad-response"),
        pytest.param(ProviderTooLarge("too large"), False, id="too-large"),
        pytest.param(ProviderReportedError("error event"), False, id="error-event"),
    ],
)
def test_only_transient_failures_are_retryable(error: ProviderError, retryable: bool) -> None:
    assert is_retryable(error) is retryable


def test_no_retry_past_the_configured_count() -> None:
    error = ProviderHTTPError("503", 503)

    assert _policy(retries=2).next_delay_s(3, error, 0.0, random.Random(0)) is None


def test_no_retry_that_could_not_start_before_the_first_token_deadline() -> None:
    error = ProviderRateLimited("429", 429, retry_after_s=5.0)

    fits = _policy(timeout_s=10.0).next_delay_s(1, error, 4.0, random.Random(0))
    late = _policy(timeout_s=10.0).next_delay_s(1, error, 5.0, random.Random(0))

    assert fits == 5.0 and late is None


# -- the wrapper ---------------------------------------------------------------------------------


class FailingProvider:
    """Fails with ``errors`` in turn (each after ``tokens_before_error`` tokens), then answers."""

    name = "fake"

    def __init__(self, errors: Sequence[ProviderError], tokens_before_error: int = 0) -> None:
        self.errors = list(errors)
        self.tokens_before_error = tokens_before_error
        self.calls = 0
        self.closed = 0

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        self.calls += 1
        try:
            if self.errors:
                error = self.errors.pop(0)
                for _ in range(self.tokens_before_error):
                    yield ProviderChunk(text="partial ")
                raise error
            yield ProviderChunk(text="answer")
        finally:
            self.closed += 1


class FakeTime:
    """A clock that only moves when the wrapper sleeps."""

    def __init__(self) -> None:
        self.now = 0.0
        self.sleeps: list[float] = []

    def clock(self) -> float:
        return self.now

    async def sleep(self, seconds: float) -> None:
        self.sleeps.append(seconds)
        self.now += seconds


def _wrap(inner: FailingProvider, policy: RetryPolicy, time: FakeTime) -> RetryingProvider:
    return RetryingProvider(inner, policy, sleep=time.sleep, clock=time.clock, rng=random.Random(7))


async def _drain(provider: RetryingProvider) -> tuple[str, ProviderError | None]:
    text = ""
    try:
        async for chunk in provider.stream(MODEL, []):
            text += chunk.text
    except ProviderError as exc:
        return text, exc
    return text, None


async def test_failures_before_the_first_token_are_retried_with_growing_waits() -> None:
    inner, time = (
        FailingProvider([ProviderHTTPError("503", 503), ProviderReset("reset")]),
        FakeTime(),
    )

    text, error = await _drain(_wrap(inner, _policy(retries=2), time))

    assert (text, error, inner.calls, inner.closed) == ("answer", None, 3, 3)
    assert 0.25 <= time.sleeps[0] <= 0.5 and 0.5 <= time.sleeps[1] <= 1.0


async def test_the_retry_after_the_endpoint_asked_for_is_waited() -> None:
    inner, time = FailingProvider([ProviderRateLimited("429", 429, retry_after_s=1.0)]), FakeTime()

    text, _ = await _drain(_wrap(inner, _policy(), time))

    assert text == "answer" and time.sleeps == [1.0]


async def test_retries_exhausted_raise_the_last_error() -> None:
    errors = [
        ProviderHTTPError("500", 500),
        ProviderHTTPError("502", 502),
        ProviderRateLimited("429", 429),
    ]
    inner, time = FailingProvider(errors), FakeTime()

    _, error = await _drain(_wrap(inner, _policy(retries=2), time))

    assert isinstance(error, ProviderRateLimited) and inner.calls == 3 and len(time.sleeps) == 2


async def test_a_failure_after_the_first_token_is_raised_without_a_retry() -> None:
    inner, time = FailingProvider([ProviderReset("reset")], tokens_before_error=1), FakeTime()

    text, error = await _drain(_wrap(inner, _policy(retries=2), time))

    assert text == "partial " and isinstance(error, ProviderReset)
    assert inner.calls == 1 and time.sleeps == []


async def test_zero_retries_gives_the_first_error() -> None:
    inner, time = FailingProvider([ProviderHTTPError("503", 503)]), FakeTime()

    _, error = await _drain(_wrap(inner, _policy(retries=0), time))

    assert isinstance(error, ProviderHTTPError) and inner.calls == 1


async def test_the_deadline_ends_the_retries_with_the_error() -> None:
    errors = [ProviderRateLimited("429", 429, retry_after_s=0.6)] * 5
    inner, time = FailingProvider(errors), FakeTime()

    _, error = await _drain(_wrap(inner, _policy(retries=5, timeout_s=1.0), time))

    assert isinstance(error, ProviderRateLimited)
    assert time.sleeps == [0.6] and inner.calls == 2


async def test_closing_the_stream_mid_answer_closes_the_attempt() -> None:
    inner, time = FailingProvider([ProviderReset("reset")], tokens_before_error=3), FakeTime()
    stream = _wrap(inner, _policy(retries=2), time).stream(MODEL, [])

    first = await anext(stream)
    await stream.aclose()  # type: ignore[attr-defined]

    assert first.text == "partial " and inner.closed == 1
    with pytest.raises(StopAsyncIteration):
        await anext(stream)


async def test_a_stream_closed_before_it_began_asks_nothing() -> None:
    inner, time = FailingProvider([]), FakeTime()
    stream = _wrap(inner, _policy(), time).stream(MODEL, [])

    await stream.aclose()  # type: ignore[attr-defined]

    with pytest.raises(StopAsyncIteration):
        await anext(stream)
    assert inner.calls == 0


async def test_after_the_retries_the_stream_stays_ended() -> None:
    inner, time = FailingProvider([ProviderHTTPError("400", 400)]), FakeTime()
    stream = _wrap(inner, _policy(retries=2), time).stream(MODEL, [])

    with pytest.raises(ProviderHTTPError):
        await anext(stream)
    with pytest.raises(StopAsyncIteration):
        await anext(stream)
    assert inner.calls == 1
