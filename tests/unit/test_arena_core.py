"""ArenaCore against in-memory providers: concurrency, fault isolation, abort, stall, steer."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import AsyncIterator, Sequence
from dataclasses import replace
from decimal import Decimal

from arena_api.core.arena import STOPPED, ArenaCore, Signal, SlotRun, SteerControl
from arena_api.core.cost import estimate_prompt_tokens, price
from arena_api.core.errors import ProviderHTTPError
from arena_api.core.events import (
    InternalEvent,
    InternalMatchupDone,
    InternalSlotDone,
    InternalSlotError,
    InternalSteered,
    InternalToken,
)
from arena_api.core.models import ChatMessage, ModelEntry, Prices
from arena_api.core.ports import ProviderChunk
from arena_api.core.response_metrics import estimate_tokens

MESSAGES = [ChatMessage(role="user", content="hello")]


def _model(name: str) -> ModelEntry:
    return ModelEntry(uuid.uuid4(), name, "fake", name)


class ScriptedProvider:
    """Yields ``tokens`` with ``delay`` seconds between them; may fail after ``fail_after``."""

    name = "fake"

    def __init__(
        self,
        tokens: Sequence[str],
        *,
        delay: float = 0.0,
        fail_after: int | None = None,
        stall_after: int | None = None,
        usage: int | None = None,
    ) -> None:
        self.tokens, self.delay = list(tokens), delay
        self.fail_after, self.stall_after, self.usage = fail_after, stall_after, usage
        self.closed = 0
        self.seen: list[list[ChatMessage]] = []

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        self.seen.append(list(messages))
        try:
            for index, token in enumerate(self.tokens):
                if index == self.fail_after:
                    raise ProviderHTTPError("the model endpoint answered 500", 500)
                if index == self.stall_after:
                    await asyncio.sleep(3600)
                if self.delay:
                    await asyncio.sleep(self.delay)
                yield ProviderChunk(text=token)
            if self.usage is not None:
                yield ProviderChunk(output_tokens=self.usage, model_version="v-test")
        finally:
            self.closed += 1


async def _collect(stream: AsyncIterator[InternalEvent]) -> list[InternalEvent]:
    return [event async for event in stream]


def _runs(a: ScriptedProvider, b: ScriptedProvider) -> list[SlotRun]:
    return [SlotRun("A", _model("a"), a), SlotRun("B", _model("b"), b)]


async def test_slow_slot_does_not_hold_back_the_fast_one() -> None:
    fast = ScriptedProvider(["f"] * 5)
    slow = ScriptedProvider(["s"] * 3, delay=0.05)

    events = await _collect(ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(fast, slow)))

    kinds = [(e.type, getattr(e, "slot", None)) for e in events]
    assert kinds.index(("slot_done", "A")) < kinds.index(("token", "B"))
    assert isinstance(events[-1], InternalMatchupDone)


async def test_failing_slot_reports_error_and_the_other_completes() -> None:
    ok = ScriptedProvider(["a", "b", "c"], delay=0.01)
    broken = ScriptedProvider(["x", "y", "z"], fail_after=1)

    events = await _collect(ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(ok, broken)))

    errors = [e for e in events if isinstance(e, InternalSlotError)]
    done = {e.slot: e.result for e in events if isinstance(e, InternalSlotDone)}
    assert [(e.slot, e.message) for e in errors] == [("B", "the model endpoint answered 500")]
    assert done["A"].content == "abc" and done["A"].error is None
    assert done["B"].content == "x" and done["B"].error == "the model endpoint answered 500"
    assert isinstance(events[-1], InternalMatchupDone)


async def test_a_bug_in_one_provider_is_contained_to_its_slot() -> None:
    class Crashing(ScriptedProvider):
        async def stream(self, model, messages):  # type: ignore[no-untyped-def]
            yield ProviderChunk(text="x")
            raise RuntimeError("boom")

    events = await _collect(
        ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(ScriptedProvider(["a"]), Crashing([])))
    )

    errors = [e for e in events if isinstance(e, InternalSlotError)]
    assert [e.slot for e in errors] == ["B"] and "boom" not in errors[0].message


async def test_stalled_slot_times_out_into_slot_error() -> None:
    stalled = ScriptedProvider(["a", "b"], stall_after=1)
    started = time.monotonic()

    events = await _collect(
        ArenaCore(slot_timeout_s=0.2).stream(MESSAGES, _runs(ScriptedProvider(["ok"]), stalled))
    )

    errors = [e for e in events if isinstance(e, InternalSlotError)]
    assert [e.slot for e in errors] == ["B"] and "timed out" in errors[0].message
    assert time.monotonic() - started < 2
    assert stalled.closed == 1


async def test_the_slot_timeout_counts_silence_not_the_whole_answer() -> None:
    steady = ScriptedProvider([str(n) for n in range(12)], delay=0.05)  # 0.6 s in all

    events = await _collect(
        ArenaCore(slot_timeout_s=0.2).stream(MESSAGES, _runs(ScriptedProvider(["ok"]), steady))
    )

    assert not [e for e in events if isinstance(e, InternalSlotError)]
    done = [e for e in events if isinstance(e, InternalSlotDone) and e.slot == "B"]
    assert done[0].result.content == "".join(str(n) for n in range(12))


async def test_a_stall_after_steady_output_times_out_within_a_tenth_more() -> None:
    stalled = ScriptedProvider([str(n) for n in range(8)], delay=0.05, stall_after=6)
    started = time.monotonic()

    events = await _collect(
        ArenaCore(slot_timeout_s=0.4).stream(MESSAGES, _runs(ScriptedProvider(["ok"]), stalled))
    )

    silent_from = 6 * 0.05
    elapsed = time.monotonic() - started
    errors = [e for e in events if isinstance(e, InternalSlotError)]
    assert [e.slot for e in errors] == ["B"] and "timed out" in errors[0].message
    assert silent_from + 0.4 <= elapsed + 0.02 and elapsed < silent_from + 0.44 + 1.0


async def test_abort_stops_both_slots_promptly_and_closes_providers() -> None:
    a = ScriptedProvider(["a"] * 1000, delay=0.01)
    b = ScriptedProvider(["b"] * 1000, delay=0.01)
    abort = Signal()
    seen: list[InternalEvent] = []

    async def consume() -> None:
        async for event in ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(a, b), abort=abort):
            seen.append(event)
            if len(seen) == 4:
                abort.set()

    await asyncio.wait_for(consume(), timeout=2)

    assert not any(isinstance(e, InternalMatchupDone) for e in seen)
    assert (a.closed, b.closed) == (1, 1)


async def test_closing_the_stream_releases_the_providers() -> None:
    a = ScriptedProvider(["a"] * 1000, delay=0.01)
    b = ScriptedProvider(["b"] * 1000, delay=0.01)
    stream = ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(a, b))

    await anext(stream)
    await stream.aclose()

    assert (a.closed, b.closed) == (1, 1)


async def test_metrics_use_provider_usage_when_reported_and_estimate_otherwise() -> None:
    reported = ScriptedProvider(["**Hi** ", "there"], usage=42)
    estimated = ScriptedProvider(["plain ", "words ", "here"])

    events = await _collect(
        ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(reported, estimated))
    )

    done = {e.slot: e.result for e in events if isinstance(e, InternalSlotDone)}
    assert (done["A"].output_token_count, done["A"].token_count_source) == (42, "provider")
    assert done["A"].model_version == "v-test"
    assert done["B"].token_count_source == "estimated" and done["B"].output_token_count > 0
    for result in done.values():
        assert result.ttft_ms is not None and 0 <= result.ttft_ms <= result.stream_duration_ms
        assert 0 <= result.markdown_density <= 1
    assert done["A"].markdown_density > done["B"].markdown_density


async def test_single_slot_round_runs_one_provider() -> None:
    only = ScriptedProvider(["x", "y"])

    events = await _collect(
        ArenaCore(slot_timeout_s=5).stream(MESSAGES, [SlotRun("A", _model("a"), only)])
    )

    assert {getattr(e, "slot", None) for e in events if isinstance(e, InternalToken)} == {"A"}
    assert isinstance(events[-1], InternalMatchupDone)


async def test_steer_restarts_both_slots_with_the_instruction_as_system_turn() -> None:
    a = ScriptedProvider(["a"] * 50, delay=0.01)
    b = ScriptedProvider(["b"] * 50, delay=0.01)
    steer = SteerControl()
    events: list[InternalEvent] = []

    async for event in ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(a, b), steer=steer):
        events.append(event)
        if len(events) == 3:
            assert steer.request("be brief")

    steered = [e for e in events if isinstance(e, InternalSteered)]
    assert [s.instruction for s in steered] == ["be brief"]
    assert a.seen[-1][-1] == ChatMessage(role="system", content="be brief")
    assert len(a.seen) == len(b.seen) == 2
    assert isinstance(events[-1], InternalMatchupDone)


async def test_steer_is_refused_once_a_slot_has_finished() -> None:
    steer = SteerControl()
    stream = ArenaCore(slot_timeout_s=5).stream(
        MESSAGES,
        _runs(ScriptedProvider(["a"]), ScriptedProvider(["b"] * 20, delay=0.01)),
        steer=steer,
    )

    async for event in stream:
        if isinstance(event, InternalSlotDone):
            break

    assert not steer.request("too late")
    await stream.aclose()


async def test_a_slot_that_never_starts_times_out() -> None:
    never = ScriptedProvider(["x"], stall_after=0)

    events = await _collect(
        ArenaCore(slot_timeout_s=0.05).stream(MESSAGES, [SlotRun("A", _model("a"), never)])
    )

    done = [e for e in events if isinstance(e, InternalSlotDone)][0]
    assert done.result.ttft_ms is None and done.result.content == "" and done.result.error


async def test_a_stopped_slot_costs_what_it_produced_and_a_failed_one_costs_nothing() -> None:
    prices = Prices(input_per_mtok=Decimal("2.5"), output_per_mtok=Decimal("10"))
    stopped = ScriptedProvider(["word "] * 1000, delay=0.01)
    failed = ScriptedProvider(["never"], fail_after=0)
    runs = [
        SlotRun("A", replace(_model("a"), prices=prices), stopped),
        SlotRun("B", replace(_model("b"), prices=prices), failed),
    ]
    abort = Signal()
    seen: list[InternalEvent] = []

    async for event in ArenaCore(slot_timeout_s=5).stream(MESSAGES, runs, abort=abort):
        seen.append(event)
        if sum(isinstance(e, InternalToken) for e in seen) == 20:
            abort.set()

    done = {e.slot: e.result for e in seen if isinstance(e, InternalSlotDone)}
    a, b = done["A"], done["B"]
    assert a.error == STOPPED and a.content.startswith("word word")
    assert a.input_token_count == estimate_prompt_tokens(MESSAGES)
    assert a.output_token_count == estimate_tokens(a.content)
    assert a.cost_usd == price(a.input_token_count, a.output_token_count, prices) > 0
    assert b.error and (b.input_token_count, b.output_token_count) == (0, 0)
    assert b.cost_usd == Decimal("0")


async def test_on_token_takes_the_tokens_before_each_slot_s_end() -> None:
    a, b = ScriptedProvider(["a1", "a2"], delay=0.001), ScriptedProvider(["b1"], fail_after=1)
    heard: list[tuple[str, str]] = []
    events: list[InternalEvent] = []

    async for event in ArenaCore(slot_timeout_s=5).stream(
        MESSAGES, _runs(a, b), on_token=lambda slot, text: heard.append((slot, text))
    ):
        if isinstance(event, InternalSlotDone):
            heard.append((event.slot, "done"))
        events.append(event)

    assert not any(isinstance(e, InternalToken) for e in events)
    assert [t for s, t in heard if s == "A"] == ["a1", "a2", "done"]
    assert [t for s, t in heard if s == "B"] == ["b1", "done"]
    assert isinstance(events[-1], InternalMatchupDone)


async def test_on_token_hears_nothing_after_a_stop() -> None:
    a = ScriptedProvider(["a"] * 1000, delay=0.001)
    b = ScriptedProvider(["b"] * 1000, delay=0.001)
    abort = Signal()
    heard: list[str] = []

    def on_token(slot: str, text: str) -> None:
        heard.append(text)
        if len(heard) == 5:
            abort.set()

    stream = ArenaCore(slot_timeout_s=5).stream(
        MESSAGES, _runs(a, b), abort=abort, on_token=on_token
    )
    done = [e async for e in stream if isinstance(e, InternalSlotDone)]

    assert len(heard) == 5
    assert {e.result.error for e in done} == {STOPPED}
    assert sum(len(e.result.content) for e in done) >= 5


async def test_on_token_hears_nothing_of_the_old_answer_after_a_steer() -> None:
    a = ScriptedProvider(["a"] * 30, delay=0.001)
    b = ScriptedProvider(["b"] * 30, delay=0.001)
    steer = SteerControl()
    heard: list[str] = []

    def on_token(slot: str, text: str) -> None:
        heard.append(text)
        if len(heard) == 3:
            assert steer.request("be brief")

    events = await _collect(
        ArenaCore(slot_timeout_s=5).stream(MESSAGES, _runs(a, b), steer=steer, on_token=on_token)
    )

    assert [e.instruction for e in events if isinstance(e, InternalSteered)] == ["be brief"]
    assert len(heard) == 3 + 60  # three before the steer, then both whole new answers
