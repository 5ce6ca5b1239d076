"""Retries of a model call that failed before its first token: one policy for every HTTP provider.

    the attempt failed before it yielded anything
        429, 500/502/503/504, refused, reset        -> wait, then try again (up to ``retries``)
        anything else (4xx, timeout, bad stream)    -> the error, at once
    the attempt failed after it yielded a chunk     -> the error, never a retry (a voter saw it)

The wait before retry ``n`` (1-based) is exponential backoff with "equal jitter": uniform in
``[b / 2, b]`` where ``b = min(BACKOFF_CAP_S, BACKOFF_BASE_S * 2 ** (n - 1))``. A ``Retry-After``
the endpoint sent (seconds or an HTTP-date; at most ``RETRY_AFTER_CAP_S`` is honoured) lengthens
the wait to at least that. Every retry must start before the slot's first-token deadline (the
slot timeout, counted from the call's start): one that could not gives up with the error at once,
so a voter learns why rather than waiting for the slot to time out.
"""

from __future__ import annotations

import asyncio
import logging
import random
import time
from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from email.utils import parsedate_to_datetime

from arena_api.core.errors import (
    ProviderError,
    ProviderHTTPError,
    ProviderRateLimited,
    ProviderReset,
    ProviderUnreachable,
)
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ModelProvider, ProviderChunk

__all__ = [
    "BACKOFF_BASE_S",
    "BACKOFF_CAP_S",
    "RETRYABLE_STATUSES",
    "RETRY_AFTER_CAP_S",
    "RetryPolicy",
    "RetryingProvider",
    "is_retryable",
    "parse_retry_after",
]

BACKOFF_BASE_S = 0.5
BACKOFF_CAP_S = 8.0
#: The longest ``Retry-After`` honoured: a longer one is waited this long (the slot's deadline
#: usually gives up first).
RETRY_AFTER_CAP_S = 60.0
#: 5xx statuses worth another try (a 501 or a 505 will not change).
RETRYABLE_STATUSES = frozenset({500, 502, 503, 504})

_log = logging.getLogger(__name__)


def parse_retry_after(value: str | None, *, now: datetime | None = None) -> float | None:
    """The seconds a ``Retry-After`` header asks for: a number of seconds or an HTTP-date.

    Args:
        value: the header's value, if the response had one.
        now: the moment an HTTP-date is measured from (default: the current UTC time).

    Returns:
        Seconds (a date in the past gives 0), or ``None`` when the header is absent or
        unreadable (a negative number included).
    """
    if value is None or not value.strip():
        return None
    text = value.strip()
    try:
        seconds = float(text)
        if seconds < 0:
            return None  # delay-seconds is a non-negative integer; a negative one is nonsense
    except ValueError:
        try:
            when = parsedate_to_datetime(text)
        except (TypeError, ValueError, IndexError):
            return None
        if when.tzinfo is None:
            when = when.replace(tzinfo=UTC)
        seconds = (when - (now or datetime.now(UTC))).total_seconds()
    if seconds != seconds or seconds in (float("inf"), float("-inf")):  # NaN, infinities
        return None
    return max(0.0, seconds)


def is_retryable(error: ProviderError) -> bool:
    """Whether another attempt could succeed where ``error`` failed (before any output)."""
    if isinstance(error, ProviderRateLimited):
        return True
    if isinstance(error, ProviderHTTPError):
        return error.status in RETRYABLE_STATUSES
    return isinstance(error, ProviderUnreachable | ProviderReset)


@dataclass(frozen=True)
class RetryPolicy:
    """How often and how long to wait before trying a failed model call again.

    Args:
        retries: attempts after the first (``ARENA_PROVIDER_RETRIES``); 0 never retries.
        first_token_timeout_s: the slot's deadline for its first token, from the call's start.
    """

    retries: int
    first_token_timeout_s: float
    base_s: float = BACKOFF_BASE_S
    cap_s: float = BACKOFF_CAP_S
    retry_after_cap_s: float = RETRY_AFTER_CAP_S

    def __post_init__(self) -> None:
        if self.retries < 0:
            raise ValueError("retries must not be negative")
        if not 0 < self.base_s <= self.cap_s:
            raise ValueError("need 0 < base_s <= cap_s")

    def backoff_bounds(self, retry: int) -> tuple[float, float]:
        """The (lowest, highest) jittered wait before retry number ``retry`` (1-based)."""
        if retry < 1:
            raise ValueError("retries are numbered from 1")
        ceiling = min(self.cap_s, self.base_s * 2.0 ** (retry - 1))
        return ceiling / 2, ceiling

    def delay_s(self, retry: int, retry_after_s: float | None, rng: random.Random) -> float:
        """The wait before retry ``retry``: jittered backoff, at least the capped Retry-After."""
        low, high = self.backoff_bounds(retry)
        delay = rng.uniform(low, high)
        if retry_after_s is not None:
            delay = max(delay, min(retry_after_s, self.retry_after_cap_s))
        return delay

    def next_delay_s(
        self, retry: int, error: ProviderError, elapsed_s: float, rng: random.Random
    ) -> float | None:
        """The wait before retry ``retry`` after ``error``, or ``None`` to give up with it.

        Args:
            retry: the number of the retry this would be (1-based).
            error: why the previous attempt failed (before any output).
            elapsed_s: seconds since the call started.
            rng: the source of the jitter.
        """
        if retry > self.retries or not is_retryable(error):
            return None
        delay = self.delay_s(retry, error.retry_after_s, rng)
        if elapsed_s + delay >= self.first_token_timeout_s:
            return None  # the retry could not start before the slot's deadline
        return delay


class RetryingProvider:
    """A ``ModelProvider`` that retries its inner provider's failures before the first chunk.

    Args:
        inner: the provider whose calls are retried.
        policy: when and how long to wait.
        sleep: waits (injectable for tests).
        clock: monotonic seconds (injectable for tests).
        rng: the jitter's source.
    """

    def __init__(
        self,
        inner: ModelProvider,
        policy: RetryPolicy,
        *,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        clock: Callable[[], float] = time.monotonic,
        rng: random.Random | None = None,
    ) -> None:
        self.name = inner.name
        self.inner = inner
        self.policy = policy
        self._sleep = sleep
        self._clock = clock
        self._rng = rng or random.Random()

    def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """The inner provider's stream; a retryable failure before its first chunk starts it
        again (see the module's docstring).

        Raises:
            ProviderError: the last attempt's error, or any error after the first chunk.
        """
        return _Attempts(self, model, messages)


class _Attempts:
    """The chunks of one retried call.

    Until the first chunk, each ``__anext__`` runs the attempts (and the waits between them);
    from then on it is the inner stream's own ``__anext__``, handed through: a chunk costs no
    step of a wrapper of ours, and an error after the first chunk reaches the caller as it is.
    Closing it closes the attempt under way.
    """

    def __init__(
        self, owner: RetryingProvider, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> None:
        self._owner = owner
        self._model = model
        self._messages = messages
        self._chunks: AsyncIterator[ProviderChunk] | None = None
        self._is_committed = False  # a chunk came, or the attempts are over

    def __aiter__(self) -> _Attempts:
        return self

    def __anext__(self) -> Awaitable[ProviderChunk]:
        if self._is_committed and self._chunks is not None:
            return self._chunks.__anext__()
        return self._first()

    async def aclose(self) -> None:
        self._is_committed = True
        if self._chunks is not None:
            await _close(self._chunks)

    async def _first(self) -> ProviderChunk:
        owner, model = self._owner, self._model
        if self._is_committed:  # closed before its first attempt
            raise StopAsyncIteration
        started = owner._clock()
        retry = 0
        while True:
            chunks = self._chunks = owner.inner.stream(model, self._messages)
            try:
                chunk = await chunks.__anext__()
            except ProviderError as exc:
                await _close(chunks)  # the attempt's connection goes now, not at GC
                retry += 1
                delay = owner.policy.next_delay_s(retry, exc, owner._clock() - started, owner._rng)
                if delay is None:
                    self._is_committed = True
                    raise
                _log.info(
                    "retrying a model call in %.2f s (%s, retry %d of %d)",
                    delay,
                    exc.code,
                    retry,
                    owner.policy.retries,
                    extra={"provider": owner.name, "model": model.provider_model_id},
                )
            except BaseException:
                self._is_committed = True
                await _close(chunks)
                raise
            else:
                self._is_committed = True
                return chunk
            try:
                await owner._sleep(delay)
            except BaseException:
                self._is_committed = True
                raise


async def _close(chunks: AsyncIterator[ProviderChunk]) -> None:
    aclose = getattr(chunks, "aclose", None)
    if aclose is not None:
        await aclose()
