"""ArenaCore: run the slots of a round concurrently and merge them into one event stream.

Each slot runs in its own task and pushes into one queue, so a slow slot never blocks the other;
a slot that fails (provider error, stall past the slot timeout, or a bug) emits ``slot_error``
(with the error's stable ``code``, see ``core.slot_errors``) and then its ``slot_done`` carrying
the error, while the other keeps streaming. The ``abort``
event (the control plane's stop) cancels every unfinished slot and yields its ``slot_done`` with
what it had produced, marked ``stopped``. Closing the stream cancels everything and yields
nothing more. Either way provider connections are released before ``stream`` returns.

Steering (abort-and-restart) is the caller's to drive through ``SteerRequest``: the running
generation is cancelled, ``steered`` is emitted, and every slot restarts with the instruction
appended as a system turn.
"""

from __future__ import annotations

import asyncio
import collections
import contextlib
import functools
import time
from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass

from arena_api.core.cost import bill
from arena_api.core.errors import ProviderError, ProviderTimeout
from arena_api.core.events import (
    InternalEvent,
    InternalMatchupDone,
    InternalSlotDone,
    InternalSlotError,
    InternalSteered,
    InternalToken,
    SlotResult,
)
from arena_api.core.identity import names_itself
from arena_api.core.models import ChatMessage, ModelEntry, Slot
from arena_api.core.ports import ModelProvider
from arena_api.core.response_metrics import markdown_density
from arena_api.core.slot_errors import INTERNAL_ERROR

__all__ = ["ArenaCore", "Signal", "SlotRun", "SteerControl"]

_INTERNAL_FAILURE = "the model stream failed unexpectedly"
STOPPED = "stopped"


@dataclass(frozen=True)
class SlotRun:
    """One slot of a round: which model answers and through which provider."""

    slot: Slot
    model: ModelEntry
    provider: ModelProvider


class Signal:
    """A flag whose listeners are called the moment it is set.

    Like an ``asyncio.Event``, but a running stream reacts to it through a callback instead of
    a task parked on ``wait()``: two fewer tasks per round (the stop and the steer signals).
    """

    def __init__(self) -> None:
        self._is_set = False
        self._listeners: list[Callable[[], None]] = []

    def set(self) -> None:
        self._is_set = True
        for listener in list(self._listeners):
            listener()

    def clear(self) -> None:
        self._is_set = False

    def is_set(self) -> bool:
        return self._is_set

    def listen(self, listener: Callable[[], None]) -> Callable[[], None]:
        """Call ``listener`` on every ``set()``; returns what stops it."""
        self._listeners.append(listener)
        return lambda: self._listeners.remove(listener)


class SteerControl:
    """The channel through which a steer reaches a running stream (abort-and-restart).

    ``request`` is accepted only while no slot has finished; the stream consumes it.
    """

    def __init__(self) -> None:
        self._pending: str | None = None
        self._wakeup = Signal()
        self.accepting = True

    def request(self, instruction: str) -> bool:
        if not self.accepting or self._pending is not None:
            return False
        self._pending = instruction
        self._wakeup.set()
        return True

    def _take(self) -> str | None:
        instruction, self._pending = self._pending, None
        self._wakeup.clear()
        return instruction


class _Stop:
    """Queue sentinel: abort requested or a steer arrived."""


_STOP = _Stop()


class _Inbox:
    """Where the slots put their events for the stream: one reader, any number of writers.

    Like an ``asyncio.Queue`` without its bounds, task counting and getter bookkeeping, which
    cost on every token of every slot.
    """

    __slots__ = ("_items", "_waiter")

    def __init__(self) -> None:
        self._items: collections.deque[InternalEvent | _Stop] = collections.deque()
        self._waiter: asyncio.Future[None] | None = None

    def put_nowait(self, item: InternalEvent | _Stop) -> None:
        self._items.append(item)
        waiter = self._waiter
        if waiter is not None:
            self._waiter = None
            if not waiter.done():
                waiter.set_result(None)

    def empty(self) -> bool:
        return not self._items

    def get_nowait(self) -> InternalEvent | _Stop:
        return self._items.popleft()

    async def get(self) -> InternalEvent | _Stop:
        while not self._items:
            waiter = self._waiter = asyncio.get_running_loop().create_future()
            try:
                await waiter
            finally:
                self._waiter = None
        return self._items.popleft()


class ArenaCore:
    def __init__(
        self, *, slot_timeout_s: float, clock: Callable[[], float] = time.monotonic
    ) -> None:
        self._slot_timeout_s = slot_timeout_s
        self._clock = clock

    async def stream(
        self,
        messages: Sequence[ChatMessage],
        runs: Sequence[SlotRun],
        *,
        abort: Signal | None = None,
        steer: SteerControl | None = None,
        on_token: Callable[[Slot, str], None] | None = None,
    ) -> AsyncIterator[InternalEvent]:
        """Yield the round's internal events; ``matchup_done`` last, unless aborted.

        Args:
            messages: the context every slot answers (identical across slots).
            runs: one or two slots.
            abort: when set, the stream stops at once (no ``matchup_done``).
            steer: optional steer channel; an accepted steer restarts every slot.
            on_token: when given, each token goes to it at once, from its slot's task, and is
                not yielded: a caller that only passes tokens on is not woken once per token.
                As in the stream, a token that comes after a stop or a steer was asked is
                dropped, and each slot's tokens come before its ``slot_error``/``slot_done``.
        """
        context = list(messages)
        stopping = asyncio.Event()
        emit: Callable[[Slot, str], None] | None = None
        if on_token is not None:

            def emit(slot: Slot, text: str) -> None:
                if (abort is not None and abort.is_set()) or (steer and steer._wakeup.is_set()):
                    return  # the stream drops what comes after the stop or steer too
                on_token(slot, text)

        while True:
            queue = _Inbox()
            tasks = [
                asyncio.create_task(self._run_slot(run, context, queue, stopping, emit))
                for run in runs
            ]
            wake = functools.partial(queue.put_nowait, _STOP)
            unlisten = [
                signal.listen(wake)
                for signal in (abort, steer._wakeup if steer else None)
                if signal is not None
            ]
            # A stop or a steer that came while no generation was listening still counts.
            if (abort is not None and abort.is_set()) or (steer and steer._wakeup.is_set()):
                wake()
            pending = len(tasks)
            restart: str | None = None
            if steer is not None:
                steer.accepting = True
            try:
                while pending:
                    item = await queue.get()
                    if isinstance(item, _Stop):
                        if abort is not None and abort.is_set():
                            stopping.set()
                            for task in tasks:
                                task.cancel()
                            await asyncio.gather(*tasks, return_exceptions=True)
                            while not queue.empty():
                                left = queue.get_nowait()
                                if isinstance(left, InternalSlotDone):
                                    yield left
                            return
                        restart = steer._take() if steer else None
                        if restart is not None:
                            break
                        continue
                    if isinstance(item, InternalSlotDone):
                        pending -= 1
                        if steer is not None:
                            steer.accepting = False
                    yield item
            finally:
                for stop_listening in unlisten:
                    stop_listening()
                for task in tasks:
                    task.cancel()
                await asyncio.gather(*tasks, return_exceptions=True)
            if restart is None:
                yield InternalMatchupDone()
                return
            context = [*context, ChatMessage(role="system", content=restart)]
            yield InternalSteered(instruction=restart)

    async def _run_slot(
        self,
        run: SlotRun,
        messages: Sequence[ChatMessage],
        queue: _Inbox,
        stopping: asyncio.Event,
        emit: Callable[[Slot, str], None] | None = None,
    ) -> None:
        started = self._clock()
        parts: list[str] = []
        first_token_at: float | None = None
        provider_tokens: int | None = None
        provider_input_tokens: int | None = None
        model_version: str | None = None
        error: str | None = None
        code = INTERNAL_ERROR
        chunks = run.provider.stream(run.model, messages)
        loop = asyncio.get_running_loop()
        # The deadline moves at most ten times per timeout, not on every chunk (each move is a
        # timer cancelled and another scheduled): it fires after between 1 and 1.1 timeouts of
        # silence.
        timeout_s, margin_s = self._slot_timeout_s, self._slot_timeout_s / 10
        moved_at = loop.time()
        try:
            async with asyncio.timeout(timeout_s) as deadline:
                async for chunk in chunks:
                    now = loop.time()
                    if now - moved_at >= margin_s:
                        deadline.reschedule(now + timeout_s + margin_s)
                        moved_at = now
                    if chunk.text:
                        if first_token_at is None:
                            first_token_at = self._clock()
                        parts.append(chunk.text)
                        if emit is not None:
                            emit(run.slot, chunk.text)
                        else:
                            queue.put_nowait(InternalToken(slot=run.slot, text=chunk.text))
                    if chunk.output_tokens is not None:
                        provider_tokens = chunk.output_tokens
                    if chunk.input_tokens is not None:
                        provider_input_tokens = chunk.input_tokens
                    if chunk.model_version:
                        model_version = chunk.model_version
        except asyncio.CancelledError:
            if not stopping.is_set():
                raise
            error = STOPPED  # an operator's stop: keep what was produced
        except TimeoutError:
            error = f"no output for {self._slot_timeout_s:g} s; the slot timed out"
            code = ProviderTimeout.code
        except ProviderError as exc:
            error, code = str(exc) or type(exc).__name__, exc.code
        except Exception:  # a bug in one slot must never take the other down
            error = _INTERNAL_FAILURE
        finally:
            with contextlib.suppress(Exception):
                await chunks.aclose()  # type: ignore[attr-defined]
        finished = self._clock()
        content = "".join(parts)
        duration_ms = max(0, round((finished - started) * 1000))
        billed = bill(
            messages=messages,
            content=content,
            reported_input=provider_input_tokens,
            reported_output=provider_tokens,
            prices=run.model.prices,
        )
        result = SlotResult(
            content=content,
            latency_ms=duration_ms,
            ttft_ms=None
            if first_token_at is None
            else max(0, round((first_token_at - started) * 1000)),
            stream_duration_ms=duration_ms,
            output_token_count=billed.output_tokens,
            token_count_source=billed.output_source,
            input_token_count=billed.input_tokens,
            input_token_source=billed.input_source,
            cost_usd=billed.cost_usd,
            names_itself=names_itself(content, run.model),
            markdown_density=markdown_density(content),
            model_version=model_version,
            error=error,
        )
        if error is not None and error != STOPPED:
            queue.put_nowait(InternalSlotError(slot=run.slot, message=error, code=code))
        queue.put_nowait(InternalSlotDone(slot=run.slot, result=result))
