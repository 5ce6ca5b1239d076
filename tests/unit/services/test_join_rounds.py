"""Slot join through ``ArenaService.start_round`` on in-memory fakes: sibling requests with one
``joinKey`` share a matchup. Roles are assigned without an ``await``, so the order of the
requests is the order their tasks run; no test sleeps to make a leader."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from arena_api.core.join import JoinBroker, JoinError
from arena_api.services.rounds import RoundOptions
from tests.fakes.arena import FakeArena, drain
from tests.fakes.ports import FakeClock


def _joining(max_pending: int = 8) -> FakeArena:
    clock = FakeClock()
    # A window no test waits out: every sibling here arrives, or the test says why not.
    broker = JoinBroker(window_s=60, max_pending=max_pending, clock=clock.monotonic)
    return FakeArena(join=broker, clock=clock)


def _sibling(key: str = "k") -> dict[str, Any]:
    return {"sessionId": "s", "joinKey": key}


async def test_two_siblings_share_one_matchup_each_streaming_one_slot() -> None:
    arena = _joining()

    leader, follower = await asyncio.gather(arena.start(**_sibling()), arena.start(**_sibling()))
    events = await asyncio.gather(drain(leader), drain(follower))

    assert (leader.started.slots, follower.started.slots) == (("A",), ("B",))
    assert leader.started.matchup_id == follower.started.matchup_id
    assert len(arena.store.rounds) == 1 and len(arena.provider.calls) == 2
    assert [{e[1].get("slot") for e in es if e[0] == "token"} for es in events] == [{"A"}, {"B"}]
    assert all(es[-1][0] == "matchup_done" for es in events)
    assert arena.observer.of("join_ended") == [("joined",)]


async def test_siblings_naming_their_slots_stream_the_slots_they_named() -> None:
    arena = _joining()

    b_first, a_second = await asyncio.gather(
        arena.start(**_sibling(), options=RoundOptions(slot="B")),
        arena.start(**_sibling(), options=RoundOptions(slot="A")),
    )

    assert (b_first.started.slots, a_second.started.slots) == (("B",), ("A",))
    assert len(arena.store.rounds) == 1
    await asyncio.gather(drain(b_first), drain(a_second))


async def test_the_pending_cap_refuses_a_new_unpaired_scope_while_a_leader_waits() -> None:
    arena = _joining(max_pending=1)
    waiting = asyncio.create_task(arena.start(**_sibling("first")))
    broker = arena.join
    assert isinstance(broker, JoinBroker)
    while broker.waiting == 0:  # noqa: ASYNC110 (yields to the leader's task, never sleeps)
        await asyncio.sleep(0)

    with pytest.raises(JoinError) as refused:
        await arena.start(**_sibling("second"))

    assert (refused.value.status, refused.value.code) == (503, "join_unavailable")
    follower = await arena.start(**_sibling("first"))
    await asyncio.gather(drain(await waiting), drain(follower))


async def test_a_third_sibling_is_refused_once_both_slots_are_taken() -> None:
    arena = _joining()
    pair = await asyncio.gather(arena.start(**_sibling()), arena.start(**_sibling()))

    with pytest.raises(JoinError) as refused:
        await arena.start(**_sibling())

    assert (refused.value.status, refused.value.code) == (409, "join_slots_exhausted")
    await asyncio.gather(*(drain(s) for s in pair))


async def test_a_join_key_without_a_session_is_a_400() -> None:
    arena = _joining()

    with pytest.raises(JoinError) as refused:
        await arena.start(joinKey="k")

    assert (refused.value.status, refused.value.code) == (400, "join_requires_session")


async def test_a_request_naming_its_slot_when_joining_is_off_is_a_503() -> None:
    arena = FakeArena()

    with pytest.raises(JoinError) as refused:
        await arena.start(**_sibling(), options=RoundOptions(slot="A"))

    assert (refused.value.status, refused.value.code) == (503, "join_disabled")
    assert arena.store.rounds == []


async def test_with_joining_off_each_sibling_gets_a_matchup_of_its_own() -> None:
    arena = FakeArena()

    pair = await asyncio.gather(arena.start(**_sibling()), arena.start(**_sibling()))

    assert [s.started.slots for s in pair] == [("A", "B"), ("A", "B")]
    assert len(arena.store.rounds) == 2
    await asyncio.gather(*(drain(s) for s in pair))
