"""JoinBroker and SlotChannel on their own: roles, failures, forwarding, no leaks."""

from __future__ import annotations

import asyncio

import pytest

from arena_api.core.errors import ArenaError
from arena_api.core.events import MatchupDone, MatchupStarted, SlotDone, SlotError, Token
from arena_api.core.join import (
    FollowerClaim,
    JoinBroker,
    JoinError,
    JoinHandshake,
    LeaderClaim,
    SlotChannel,
    join_scope,
)

STARTED = MatchupStarted(matchup_id="m", slots=("A", "B"), mode="matchup", votable=True)


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now


async def _drain(channel: SlotChannel, started: MatchupStarted = STARTED) -> list[str]:
    return [
        e.type + (f":{getattr(e, 'slot', '')}" if hasattr(e, "slot") else "")
        async for e in channel.events(started)
    ]


def test_scope_depends_on_every_part_and_the_secret() -> None:
    base = join_scope(b"s" * 32, "session", None, "prompt", "key")

    variants = {
        join_scope(b"t" * 32, "session", None, "prompt", "key"),
        join_scope(b"s" * 32, "other", None, "prompt", "key"),
        join_scope(b"s" * 32, "session", "c", "prompt", "key"),
        join_scope(b"s" * 32, "session", None, "prompt!", "key"),
        join_scope(b"s" * 32, "session", None, "prompt", "key2"),
    }

    assert base not in variants and len(variants) == 5


async def test_first_claim_leads_second_follows_third_is_refused() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)

    first, second = broker.claim("x"), broker.claim("x")

    assert isinstance(first, LeaderClaim) and isinstance(second, FollowerClaim)
    with pytest.raises(JoinError) as caught:
        broker.claim("x")
    assert (caught.value.status, caught.value.code) == (409, "join_slots_exhausted")


async def test_sibling_after_the_window_closed_is_expired() -> None:
    broker = JoinBroker(window_s=0.01, max_pending=10)
    leader = broker.claim("x")
    assert isinstance(leader, LeaderClaim)

    joined = await leader.wait_for_follower()

    assert joined is False
    with pytest.raises(JoinError) as caught:
        broker.claim("x")
    assert (caught.value.status, caught.value.code) == (409, "join_expired")


async def test_follower_gets_the_leaders_handshake() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)
    leader, follower = broker.claim("x"), broker.claim("x")
    assert isinstance(leader, LeaderClaim) and isinstance(follower, FollowerClaim)
    channel = SlotChannel(frozenset({"B"}), 16)

    assert await leader.wait_for_follower() is True
    leader.publish(JoinHandshake(STARTED, channel))

    assert (await follower.handshake()).channel is channel


async def test_leaders_pre_stream_failure_reaches_the_follower_with_its_status() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)
    leader, follower = broker.claim("x"), broker.claim("x")
    assert isinstance(leader, LeaderClaim) and isinstance(follower, FollowerClaim)

    leader.fail(ArenaError("not ready", status=409, code="conversation_not_ready"))

    with pytest.raises(ArenaError) as caught:
        await follower.handshake()
    assert (caught.value.status, caught.value.code) == (409, "conversation_not_ready")


async def test_unclassified_leader_failure_is_join_failed() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)
    leader, follower = broker.claim("x"), broker.claim("x")
    assert isinstance(leader, LeaderClaim) and isinstance(follower, FollowerClaim)

    leader.fail(RuntimeError("boom"))

    with pytest.raises(ArenaError) as caught:
        await follower.handshake()
    assert (caught.value.status, caught.value.code) == (500, "join_failed")


async def test_follower_times_out_when_the_leader_never_publishes() -> None:
    broker = JoinBroker(window_s=1, max_pending=10, leader_timeout_s=0.05)
    broker.claim("x")
    follower = broker.claim("x")
    assert isinstance(follower, FollowerClaim)

    with pytest.raises(JoinError) as caught:
        await follower.handshake()

    assert (caught.value.status, caught.value.code) == (504, "join_leader_timeout")


async def test_pending_cap_refuses_new_scopes() -> None:
    broker = JoinBroker(window_s=5, max_pending=2)
    broker.claim("a")
    broker.claim("b")

    with pytest.raises(JoinError) as caught:
        broker.claim("c")

    assert (caught.value.status, caught.value.code) == (503, "join_unavailable")


async def test_thousands_of_joins_leave_the_broker_empty() -> None:
    clock = Clock()
    broker = JoinBroker(window_s=0.001, max_pending=100, clock=clock)

    for index in range(5000):
        scope = f"scope-{index}"
        leader = broker.claim(scope)
        assert isinstance(leader, LeaderClaim)
        if index % 2:
            follower = broker.claim(scope)
            assert isinstance(follower, FollowerClaim)
            await leader.wait_for_follower()
            leader.publish(JoinHandshake(STARTED, SlotChannel(frozenset({"B"}), 16)))
            await follower.handshake()
        else:
            clock.now += 0.01
            await leader.wait_for_follower()
    clock.now += 3600
    broker.sweep()

    assert broker.size == 0 and broker.waiting == 0


async def test_claims_in_one_tick_never_produce_two_leaders() -> None:
    broker = JoinBroker(window_s=1, max_pending=1000)

    async def claim() -> str:
        return type(broker.claim("same")).__name__

    roles = await asyncio.gather(claim(), claim(), return_exceptions=True)

    assert sorted(r if isinstance(r, str) else r.code for r in roles) == [  # type: ignore[union-attr]
        "FollowerClaim",
        "LeaderClaim",
    ]


async def test_channel_streams_only_its_slots_and_ends_after_its_last_slot() -> None:
    channel = SlotChannel(frozenset({"B"}), 16)

    for event in (
        Token(slot="A", token="a"),
        Token(slot="B", token="b"),
        SlotDone(slot="A"),
        SlotDone(slot="B"),
    ):
        channel.publish(event)

    assert await _drain(channel) == ["matchup_started", "token:B", "slot_done:B", "matchup_done"]


async def test_split_moves_the_slots_buffered_events_to_the_new_channel() -> None:
    both = SlotChannel(frozenset({"A", "B"}), 16)
    for event in (Token(slot="A", token="a"), Token(slot="B", token="b"), SlotDone(slot="B")):
        both.publish(event)

    other = both.split("B", 16)
    both.publish(SlotDone(slot="A"))

    assert await _drain(other) == ["matchup_started", "token:B", "slot_done:B", "matchup_done"]
    assert await _drain(both) == ["matchup_started", "token:A", "slot_done:A", "matchup_done"]


async def test_backlog_cap_fails_the_slow_connection_instead_of_growing() -> None:
    channel = SlotChannel(frozenset({"A"}), 16)

    for _ in range(1000):
        channel.publish(Token(slot="A", token="x"))

    assert channel.closed and channel.backlog <= 16 + 4
    events = [e async for e in channel.events(STARTED)]
    assert isinstance(events[-2], SlotDone) and isinstance(events[-1], MatchupDone)
    assert any(isinstance(e, SlotError) for e in events)


async def test_a_leader_that_names_slot_b_leaves_slot_a_to_its_follower() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)

    leader = broker.claim("x", "B")
    follower = broker.claim("x", "A")

    assert isinstance(leader, LeaderClaim) and leader.slot == "B"
    assert isinstance(follower, FollowerClaim)


async def test_a_sibling_naming_the_leaders_own_slot_is_refused_and_the_slot_stays_open() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)
    broker.claim("x", "A")

    with pytest.raises(JoinError) as caught:
        broker.claim("x", "A")

    assert (caught.value.status, caught.value.code) == (409, "join_slot_taken")
    assert isinstance(broker.claim("x", "B"), FollowerClaim)


async def test_a_leader_that_names_no_slot_streams_a() -> None:
    broker = JoinBroker(window_s=1, max_pending=10)

    leader = broker.claim("x")

    assert isinstance(leader, LeaderClaim) and leader.slot == "A"
