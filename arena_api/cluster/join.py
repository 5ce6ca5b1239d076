"""Slot join across replicas: the two sibling requests may reach different replicas.

Roles are decided in Redis by one Lua script per request, so two siblings arriving at the same
instant on two replicas can never both lead, and every row of the join failure table holds as in
one process (``arena_api.core.join``):

==============================  =====================================================
a third sibling                 409 ``join_slots_exhausted`` (while paired, and for 60 s after)
a sibling after the window      409 ``join_expired``
a sibling naming the same slot  409 ``join_slot_taken``
more unpaired scopes than       503 ``join_unavailable`` (``ARENA_JOIN_MAX_PENDING``, counted
``ARENA_JOIN_MAX_PENDING``      over the cluster)
the leader never hands over     504 ``join_leader_timeout`` (window + 30 s; at once when the
                                leader's replica stops beating)
a pre-stream failure            the leader's own status and code, forwarded
==============================  =====================================================

State, all expiring: ``arena:join:<scope>`` (a hash: the leader's slot, replica and claim id;
the follower's once it came), ``arena:join:closed:<scope>`` (the tombstone: was it paired) and
``arena:join:pending`` (a sorted set of unpaired scopes by the end of their window).

The follower's replica learns of its leader from the claim; the leader's replica learns of the
follower from a message the claim script publishes to its inbox (``bus.ReplicaBus``), and, should
that message be lost, from the hash when its window ends. The leader then sends the round's start
and every batch of the follower's slot to the follower's replica, which feeds them into a local
``SlotChannel`` (with its backlog cap) that the follower's response drains, exactly as in one
process. While it streams, the follower's replica watches the leader's heartbeat: if the leader's
replica dies the follower's stream ends with ``run_error`` ``replica_lost``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import time
from dataclasses import dataclass, field
from typing import Any

from pydantic import TypeAdapter, ValidationError
from redis.exceptions import RedisError

from arena_api.cluster import PREFIX, ClusterUnavailable
from arena_api.cluster.bus import HEARTBEAT_S, ReplicaBus
from arena_api.core.errors import ArenaError
from arena_api.core.events import MatchupStarted, PublicEvent, RunError
from arena_api.core.join import (
    FollowerRole,
    JoinHandshake,
    LeaderRole,
    ScopedJoins,
    SlotChannel,
    forwarded,
    refusal,
)
from arena_api.core.models import Slot

__all__ = ["RedisJoinBroker"]

_log = logging.getLogger(__name__)
_EVENTS: TypeAdapter[list[PublicEvent]] = TypeAdapter(list[PublicEvent])
_PENDING = f"{PREFIX}join:pending"
#: How long a paired or expired scope is remembered (as in one process).
TOMBSTONE_MS = 60_000

# KEYS: hash, tombstone, pending set. ARGV: scope, slot ('' for none), replica, claim id,
# window ms, max pending, hash ttl ms, inbox prefix.
_CLAIM = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + math.floor(tonumber(t[2]) / 1000)
local found = redis.call('HGETALL', KEYS[1])
if #found > 0 then
    local f = {}
    for i = 1, #found, 2 do f[found[i]] = found[i + 1] end
    if f.followed == '1' then return {'exhausted'} end
    if ARGV[2] ~= '' and ARGV[2] == f.slot then return {'slot_taken', f.slot} end
    redis.call('HSET', KEYS[1], 'followed', '1', 'follower', ARGV[3], 'fid', ARGV[4])
    redis.call('ZREM', KEYS[3], ARGV[1])
    redis.call('PUBLISH', ARGV[8] .. f.leader, cjson.encode({
        kind = 'join_followed', id = f.lid, follower = ARGV[3], fid = ARGV[4]}))
    return {'follower', f.slot, f.leader}
end
local closed = redis.call('GET', KEYS[2])
if closed then
    if closed == '1' then return {'exhausted'} end
    return {'expired'}
end
redis.call('ZREMRANGEBYSCORE', KEYS[3], '-inf', now)
if redis.call('ZCARD', KEYS[3]) >= tonumber(ARGV[6]) then return {'unavailable'} end
local slot = ARGV[2]
if slot == '' then slot = 'A' end
redis.call('HSET', KEYS[1], 'slot', slot, 'leader', ARGV[3], 'lid', ARGV[4], 'followed', '0')
redis.call('PEXPIRE', KEYS[1], tonumber(ARGV[7]))
redis.call('ZADD', KEYS[3], now + tonumber(ARGV[5]), ARGV[1])
return {'leader', slot}
"""

# The leader's window is over: paired (the follower's replica and id), or closed as expired.
# KEYS: hash, tombstone, pending set. ARGV: scope, tombstone ms.
_DECIDE = """
local f = redis.call('HMGET', KEYS[1], 'followed', 'follower', 'fid')
if f[1] == '1' then return {1, f[2], f[3]} end
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], '0', 'PX', tonumber(ARGV[2]))
redis.call('ZREM', KEYS[3], ARGV[1])
return {0}
"""

# The leader has handed over (or failed): forget the scope, keep its tombstone. Returns the
# follower's replica and claim id when one came, which the leader may not have heard of yet.
# KEYS: hash, tombstone, pending set. ARGV: scope, tombstone ms.
_RELEASE = """
local f = redis.call('HMGET', KEYS[1], 'followed', 'follower', 'fid')
local followed = f[1] or '0'
redis.call('DEL', KEYS[1])
redis.call('SET', KEYS[2], followed, 'PX', tonumber(ARGV[2]))
redis.call('ZREM', KEYS[3], ARGV[1])
if followed == '1' then return {1, f[2], f[3]} end
return {0}
"""


def _keys(scope: str) -> list[str]:
    return [f"{PREFIX}join:{scope}", f"{PREFIX}join:closed:{scope}", _PENDING]


@dataclass
class _Follower:
    """A follower streaming here: its slot's channel and the leader's handover."""

    channel: SlotChannel
    leader: str
    handshake: asyncio.Future[JoinHandshake] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )


@dataclass
class _Leader:
    """A leader waiting here for its sibling."""

    followed: asyncio.Event = field(default_factory=asyncio.Event)
    created: float = field(default_factory=time.monotonic)
    follower: str | None = None
    fid: str | None = None


class RedisJoinBroker(ScopedJoins):
    """The ``Joiner`` port over Redis, for replicas sharing one (see the module doc).

    Args:
        bus: this replica's inbox.
        secret: the key of the join scopes, the same on every replica.
        window_s, max_pending, max_queued: as ``ARENA_JOIN_WINDOW_MS``, ``_MAX_PENDING`` and
            ``_MAX_QUEUED_EVENTS``.
        leader_timeout_s: how long a follower waits for the handover (default: window + 30 s).
    """

    def __init__(
        self,
        bus: ReplicaBus,
        *,
        secret: bytes,
        window_s: float,
        max_pending: int,
        max_queued: int,
        leader_timeout_s: float | None = None,
    ) -> None:
        super().__init__(window_s, secret)
        self._bus = bus
        self.max_pending = max_pending
        self._max_queued = max_queued
        self.leader_timeout_s = window_s + 30.0 if leader_timeout_s is None else leader_timeout_s
        redis = bus.redis
        self._claim, self._decide = redis.register_script(_CLAIM), redis.register_script(_DECIDE)
        self._release = redis.register_script(_RELEASE)
        self._leaders: dict[str, _Leader] = {}
        self._followers: dict[str, _Follower] = {}
        self._tasks: set[asyncio.Task[None]] = set()
        bus.on("join_followed", self._on_followed)
        bus.on("join_started", self._on_started)
        bus.on("join_events", self._on_events)
        bus.on("join_failed", self._on_failed)

    async def join(self, scope: str, slot: Slot | None = None) -> LeaderRole | FollowerRole:
        claim_id = secrets.token_hex(8)
        leader = self._leaders[claim_id] = _Leader()
        window_ms = round(self.window_s * 1000)
        ttl_ms = window_ms + round(self.leader_timeout_s * 1000) + 5_000
        args: list[str | int] = [scope, slot or "", self._bus.replica, claim_id, window_ms]
        args += [self.max_pending, ttl_ms, f"{PREFIX}replica:"]
        try:
            outcome = [
                item.decode() if isinstance(item, bytes) else item
                for item in await self._claim(keys=_keys(scope), args=args)
            ]
        except (RedisError, OSError):
            self._leaders.pop(claim_id, None)
            raise ClusterUnavailable("Slot join needs Redis, which cannot be reached") from None
        if outcome[0] == "leader":
            return _RedisLeader(self, scope, claim_id, leader, "B" if outcome[1] == "B" else "A")
        self._leaders.pop(claim_id, None)
        if outcome[0] != "follower":
            raise refusal(outcome[0], "B" if outcome[-1] == "B" else "A")
        mine: Slot = "B" if outcome[1] == "A" else "A"
        follower = _Follower(SlotChannel(frozenset({mine}), self._max_queued), outcome[2])
        self._followers[claim_id] = follower
        return _RedisFollower(self, claim_id, follower)

    # -- the leader's side -------------------------------------------------------------------

    async def _wait(self, scope: str, claim_id: str, leader: _Leader) -> bool:
        remaining = self.window_s - (time.monotonic() - leader.created)
        if not leader.followed.is_set() and remaining > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await leader.followed.wait()
        try:
            decided = await self._decide(keys=_keys(scope), args=[scope, TOMBSTONE_MS])
        except (RedisError, OSError):
            decided = [0]
        finally:
            self._leaders.pop(claim_id, None)
        if int(decided[0]) != 1:
            return False
        leader.follower = leader.follower or decided[1].decode()
        leader.fid = leader.fid or decided[2].decode()
        return True

    def _spawn(self, coroutine: Any) -> None:
        task = asyncio.create_task(coroutine)
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _hand_over(self, scope: str, leader: _Leader, handshake: JoinHandshake) -> None:
        """Send the round's start, then each batch of the follower's slot, to its replica."""
        assert leader.follower is not None
        started = handshake.started
        batches = handshake.channel.batches(started)
        try:
            body: dict[str, Any] = {"id": leader.fid, "started": started.wire()}
            if not await self._bus.send(leader.follower, "join_started", body):
                return  # the follower's replica is gone: stop feeding its channel
            await self._forget(scope)
            await anext(batches)  # ``started`` itself, sent above
            async for batch in batches:
                body = {"id": leader.fid, "events": [event.wire() for event in batch]}
                if not await self._bus.send(leader.follower, "join_events", body):
                    return
        except (RedisError, OSError) as exc:
            _log.error("join %s: the follower's stream broke off: %s", scope[:12], exc)
        finally:
            await batches.aclose()  # detaches the channel: the round goes on without it

    async def _fail(self, scope: str, leader: _Leader, error: BaseException) -> None:
        # A follower may have claimed its slot just before the release, its message to this
        # inbox not yet read: the release's answer names it, so it is told too.
        released = await self._forget(scope)
        if leader.follower is None and int(released[0]) == 1:
            leader.follower, leader.fid = released[1].decode(), released[2].decode()
        if leader.follower is None:
            return
        told = forwarded(error)
        body = {"id": leader.fid, "status": told.status, "code": told.code, "message": told.message}
        with contextlib.suppress(RedisError, OSError):
            await self._bus.send(leader.follower, "join_failed", body)

    async def _forget(self, scope: str) -> list[Any]:
        try:
            return list(await self._release(keys=_keys(scope), args=[scope, TOMBSTONE_MS]))
        except (RedisError, OSError):  # it expires on its own
            return [0]

    # -- the follower's side -----------------------------------------------------------------

    async def _handshake(self, claim_id: str, follower: _Follower) -> JoinHandshake:
        try:
            async with asyncio.timeout(self.leader_timeout_s):
                while not follower.handshake.done():
                    done, _ = await asyncio.wait({follower.handshake}, timeout=HEARTBEAT_S * 2)
                    if not done and not await self._bus.alive(follower.leader):
                        break
            handshake = await follower.handshake if follower.handshake.done() else None
        except TimeoutError:
            handshake = None
        except BaseException:
            self._followers.pop(claim_id, None)
            raise
        if handshake is None:
            self._followers.pop(claim_id, None)
            raise refusal("leader_timeout")
        self._spawn(self._watch(claim_id, follower))
        return handshake

    async def _watch(self, claim_id: str, follower: _Follower) -> None:
        """End the follower's stream if the leader's replica dies; forget it when it ends."""
        channel = follower.channel
        try:
            while not (channel.closed or channel.detached):
                await asyncio.sleep(HEARTBEAT_S)
                if not await self._bus.alive(follower.leader):
                    channel.fail(
                        RunError(
                            code="replica_lost",
                            message="The server running this round stopped",
                        )
                    )
        finally:
            self._followers.pop(claim_id, None)

    # -- the inbox ---------------------------------------------------------------------------

    def _on_followed(self, body: dict[str, Any]) -> None:
        leader = self._leaders.get(str(body["id"]))
        if leader is not None:
            leader.follower, leader.fid = str(body["follower"]), str(body["fid"])
            leader.followed.set()

    def _on_started(self, body: dict[str, Any]) -> None:
        follower = self._followers.get(str(body["id"]))
        if follower is None or follower.handshake.done():
            return
        started = MatchupStarted.model_validate(body["started"])
        follower.handshake.set_result(JoinHandshake(started, follower.channel))

    def _on_events(self, body: dict[str, Any]) -> None:
        follower = self._followers.get(str(body["id"]))
        if follower is None:
            return
        try:
            events = _EVENTS.validate_python(body["events"])
        except ValidationError:
            _log.warning("join: unreadable events from the leader's replica dropped")
            return
        for event in events:
            if isinstance(event, RunError):
                follower.channel.fail(event)
            else:
                follower.channel.publish(event)

    def _on_failed(self, body: dict[str, Any]) -> None:
        follower = self._followers.get(str(body["id"]))
        if follower is not None and not follower.handshake.done():
            error = ArenaError(str(body["message"]), status=int(body["status"]), code=body["code"])
            follower.handshake.set_exception(error)


@dataclass(frozen=True)
class _RedisLeader:
    _broker: RedisJoinBroker
    _scope: str
    _claim_id: str
    _leader: _Leader
    slot: Slot

    async def wait_for_follower(self) -> bool:
        return await self._broker._wait(self._scope, self._claim_id, self._leader)

    def publish(self, handshake: JoinHandshake) -> None:
        self._broker._spawn(self._broker._hand_over(self._scope, self._leader, handshake))

    def fail(self, error: BaseException) -> None:
        self._broker._leaders.pop(self._claim_id, None)
        self._broker._spawn(self._broker._fail(self._scope, self._leader, error))


@dataclass(frozen=True)
class _RedisFollower:
    _broker: RedisJoinBroker
    _claim_id: str
    _follower: _Follower

    async def handshake(self) -> JoinHandshake:
        return await self._broker._handshake(self._claim_id, self._follower)
