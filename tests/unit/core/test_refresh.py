"""A value kept for a while and read one read at a time: callers that come while a read is
under way share it, a failed read or one started before an edit is not kept."""

from __future__ import annotations

import asyncio
import gc
from collections.abc import Coroutine
from typing import Any

import pytest

from arena_api.core.refresh import Refreshed


class Clock:
    def __init__(self) -> None:
        self.now = 100.0

    def __call__(self) -> float:
        return self.now


class Source:
    """A read the test releases by hand, counting how many were started."""

    def __init__(self) -> None:
        self.started = 0
        self.value = "first"
        self.fail: Exception | None = None
        self.gate = asyncio.Event()
        self.gate.set()
        self.entered = asyncio.Event()

    async def read(self) -> str:
        self.started += 1
        self.entered.set()
        value = self.value
        await self.gate.wait()
        if self.fail is not None:
            raise self.fail
        return value

    async def held(self, calls: list[Coroutine[Any, Any, str]]) -> list[object]:
        """Start ``calls`` while the read is held, then let it finish: their results."""
        self.gate.clear()
        tasks = [asyncio.create_task(call) for call in calls]
        await self.entered.wait()
        self.gate.set()
        return await asyncio.gather(*tasks, return_exceptions=True)


async def test_a_fresh_value_is_kept_and_a_stale_one_read_again() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=2.0, clock=clock)
    assert await cached.get() == "first"
    source.value = "second"
    clock.now += 1.9
    assert await cached.get() == "first"
    clock.now += 0.2
    assert await cached.get() == "second"
    assert source.started == 2


async def test_callers_during_a_read_share_it() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=2.0, clock=clock)
    assert await source.held([cached.get() for _ in range(50)]) == ["first"] * 50
    assert source.started == 1


async def test_refresh_skips_the_kept_value_but_shares_a_read_under_way() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=60.0, clock=clock)
    await cached.get()
    source.value = "second"
    assert await source.held([cached.get(refresh=True) for _ in range(3)]) == ["second"] * 3
    assert source.started == 2
    assert await cached.get() == "second"


async def test_a_failed_read_reaches_every_waiter_and_is_not_kept() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=2.0, clock=clock)
    source.fail = ConnectionError("database down")
    results = await source.held([cached.get() for _ in range(3)])
    assert all(isinstance(r, ConnectionError) for r in results)
    source.fail = None
    assert await cached.get() == "first"
    assert source.started == 2


async def test_a_read_started_before_an_invalidation_is_not_kept() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=60.0, clock=clock)
    source.gate.clear()
    early = asyncio.create_task(cached.get())
    await source.entered.wait()
    source.value = "edited"
    cached.invalidate()
    source.gate.set()
    assert await early == "first"  # its own caller gets what it read
    assert await cached.get() == "edited"  # the next call does not keep the older read
    assert source.started == 2


async def test_a_caller_that_gives_up_does_not_cancel_the_shared_read() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=2.0, clock=clock)
    source.gate.clear()
    leaving = asyncio.create_task(cached.get())
    staying = asyncio.create_task(cached.get())
    await asyncio.sleep(0)
    leaving.cancel()
    with pytest.raises(asyncio.CancelledError):
        await leaving
    source.gate.set()
    assert await staying == "first"
    assert source.started == 1


async def test_a_read_that_fails_after_every_caller_gave_up_is_not_logged_as_unretrieved() -> None:
    clock, source = Clock(), Source()
    cached = Refreshed(source.read, ttl_s=2.0, clock=clock)
    loop = asyncio.get_running_loop()
    reported: list[dict[str, object]] = []
    previous = loop.get_exception_handler()
    loop.set_exception_handler(lambda _, context: reported.append(context))
    try:
        source.fail = ConnectionError("database down")
        source.gate.clear()
        caller = asyncio.create_task(cached.get())
        await source.entered.wait()
        caller.cancel()
        source.gate.set()
        for _ in range(3):
            await asyncio.sleep(0)
        del caller
        gc.collect()
    finally:
        loop.set_exception_handler(previous)
    assert reported == []
