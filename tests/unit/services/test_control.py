"""``ArenaService``'s control plane (stop, steer) on in-memory fakes. Each round is held at a
known point by its provider's ``hold`` event, so no test sleeps to catch a round running."""

from __future__ import annotations

import asyncio
import uuid

from arena_api.core.control import UNKNOWN_MATCHUP, ControlOutcome
from arena_api.core.models import ChatMessage
from arena_api.services.rounds import RoundStream
from tests.fakes.arena import FakeArena, drain
from tests.fakes.ports import ScriptedProvider

WRONG_TOKEN = "the matchup token does not match this matchup"


def _held_arena(**scripts: list[str]) -> FakeArena:
    """An arena whose slots stop after their first piece until ``arena.provider.hold`` is set."""
    return FakeArena(provider=ScriptedProvider(scripts=scripts, hold=asyncio.Event()))


async def _first_tokens(stream: RoundStream, events: asyncio.Queue[str]) -> None:
    """Read ``stream``, putting each event's type on ``events``."""
    async for event in stream.events():
        await events.put(event.type)


async def _until(events: asyncio.Queue[str], *kinds: str) -> None:
    """Wait (on the stream, not the clock) until each of ``kinds`` has been seen, in turn."""
    for kind in kinds:
        while await events.get() != kind:
            pass


def _matchup(stream: RoundStream) -> uuid.UUID:
    return uuid.UUID(stream.started.matchup_id)


async def test_a_stop_ends_the_round_and_stores_what_each_slot_had_produced() -> None:
    arena = _held_arena()
    stream = await arena.start()
    seen: asyncio.Queue[str] = asyncio.Queue()
    reader = asyncio.create_task(_first_tokens(stream, seen))
    await _until(seen, "token", "token")

    outcome = await arena.service.stop(_matchup(stream), stream.started.matchup_token)
    await reader

    stored = {slot: r for (_, slot), (_, r) in arena.store.responses.items()}
    assert outcome == ControlOutcome(True)
    assert {(s, r.content, r.error) for s, r in stored.items()} == {
        ("A", "Hello", "stopped"),
        ("B", "Hello", "stopped"),
    }
    assert arena.observer.of("control_action") == [("stop", True)]


async def test_a_stop_without_a_token_is_allowed_the_matchup_id_is_the_capability() -> None:
    arena = _held_arena()
    stream = await arena.start()

    outcome = await arena.service.stop(_matchup(stream))

    assert outcome.ok
    await drain(stream)


async def test_a_second_stop_of_the_same_round_is_refused() -> None:
    arena = _held_arena()
    stream = await arena.start()
    await arena.service.stop(_matchup(stream))

    outcome = await arena.service.stop(_matchup(stream))

    assert outcome == ControlOutcome(False, UNKNOWN_MATCHUP)
    await drain(stream)


async def test_a_stop_with_another_rounds_token_is_refused_and_the_round_runs_on() -> None:
    arena = _held_arena()
    stream = await arena.start()
    other = await arena.start("another")

    outcome = await arena.service.stop(_matchup(stream), other.started.matchup_token)

    assert outcome == ControlOutcome(False, WRONG_TOKEN)
    assert arena.service.registry.get(_matchup(stream)) is not None
    assert arena.observer.of("control_action") == [("stop", False)]
    arena.provider.hold.set()  # type: ignore[union-attr]
    await drain(stream)
    await drain(other)


async def test_a_stop_with_a_token_that_is_not_a_token_is_refused() -> None:
    arena = _held_arena()
    stream = await arena.start()

    outcome = await arena.service.stop(_matchup(stream), "garbage")

    assert outcome == ControlOutcome(False, WRONG_TOKEN)
    arena.provider.hold.set()  # type: ignore[union-attr]
    await drain(stream)


async def test_a_stop_of_an_unknown_or_finished_matchup_is_refused() -> None:
    arena = FakeArena()
    stream = await arena.start()
    await drain(stream)
    await arena.service.close(grace_s=1)  # the round's task has let go of it

    outcomes = [
        await arena.service.stop(_matchup(stream)),
        await arena.service.stop(uuid.uuid4()),
    ]

    assert outcomes == [ControlOutcome(False, UNKNOWN_MATCHUP)] * 2


async def test_a_steer_restarts_both_slots_with_the_instruction_and_stores_it() -> None:
    arena = _held_arena()
    stream = await arena.start("Write a poem")
    seen: asyncio.Queue[str] = asyncio.Queue()
    reader = asyncio.create_task(_first_tokens(stream, seen))
    await _until(seen, "token", "token")

    outcome = await arena.service.steer(_matchup(stream), "Make it shorter")
    await _until(seen, "steered")
    arena.provider.hold.set()  # type: ignore[union-attr]
    await reader

    assert outcome == ControlOutcome(True)
    steered = [messages for _, messages in arena.provider.calls[2:]]
    context = (
        ChatMessage(role="user", content="Write a poem"),
        ChatMessage(role="system", content="Make it shorter"),
    )
    assert steered == [context, context]
    assert arena.store.steers == [
        (_matchup(stream), "Make it shorter", arena.clock.now().isoformat())
    ]
    assert {r.content for _, r in arena.store.responses.values()} == {"Hello world"}


async def test_a_steer_after_a_slot_has_finished_is_refused() -> None:
    # Aurora's one-piece answer is done at once; the other slot is held after its first piece.
    arena = FakeArena(
        models=FakeArena().models[:2],
        provider=ScriptedProvider(scripts={"aurora": ["Done."]}, hold=asyncio.Event()),
    )
    stream = await arena.start()
    seen: asyncio.Queue[str] = asyncio.Queue()
    reader = asyncio.create_task(_first_tokens(stream, seen))
    await _until(seen, "slot_done")

    outcome = await arena.service.steer(_matchup(stream), "Again")

    assert outcome == ControlOutcome(False, "a slot has already completed")
    assert arena.observer.of("control_action") == [("steer", False)]
    arena.provider.hold.set()  # type: ignore[union-attr]
    await reader
    assert arena.store.steers == []


async def test_draining_stops_the_rounds_still_running_after_the_grace() -> None:
    arena = _held_arena()
    stream = await arena.start()
    seen: asyncio.Queue[str] = asyncio.Queue()
    reader = asyncio.create_task(_first_tokens(stream, seen))
    await _until(seen, "token", "token")

    stopped = await arena.service.drain(grace_s=0)
    await reader

    assert stopped == 1 and arena.service.draining
    assert {r.error for _, r in arena.store.responses.values()} == {"stopped"}
