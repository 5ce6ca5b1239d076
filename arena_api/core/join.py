"""Slot join: serve one matchup over two sibling requests, and the channels a round streams into.

Some chat UIs send one request per model for a compare turn. With the same ``joinKey`` the two
become one matchup: the first request (the leader) does all the work and owns the generation;
the second (the follower) streams slot B of it. Pieces:

* ``SlotChannel``  the queue one HTTP response drains: only its own slots' events, its own
  ``matchup_started`` and ``matchup_done``; a capped backlog, past which the connection fails.
* ``JoinScope``    what a join is authorised by: an HMAC of (session, conversation, prompt,
  joinKey) under a per-process secret. The key alone is only a correlation id.
* ``JoinBroker``   assigns roles synchronously (no ``await`` between deriving the scope and
  recording the claim, so two simultaneous siblings can never both lead), hands the follower
  the leader's result, and forgets every scope after a bounded time.
* ``Joiner``       the port ``ArenaService`` uses: ``JoinBroker`` in one process; several
  replicas pair siblings through Redis instead (``arena_api.cluster.join``), with the same roles
  and errors.

A request may name the slot it streams (a compare column that always shows slot A, say): the
leader then takes that slot and the follower the other one, whichever arrives first, and a
sibling that names the leader's own slot is refused (``join_slot_taken``).

    ArenaError
    └── JoinError   400 join_requires_session, 409 join_slots_exhausted, 409 join_expired,
                    409 join_slot_taken, 409 join_unpaired, 503 join_unavailable,
                    503 join_disabled, 504 join_leader_timeout, 500 join_failed
"""

from __future__ import annotations

import asyncio
import contextlib
import hashlib
import hmac
import json
import os
import time
from collections import OrderedDict
from collections.abc import AsyncGenerator, Callable
from dataclasses import dataclass, field
from typing import Protocol, runtime_checkable

from arena_api.core.errors import ArenaError
from arena_api.core.events import (
    MatchupDone,
    MatchupStarted,
    PublicEvent,
    SlotDone,
    SlotError,
)
from arena_api.core.models import Slot

__all__ = [
    "FollowerClaim",
    "FollowerRole",
    "JoinBroker",
    "JoinError",
    "JoinHandshake",
    "Joiner",
    "LeaderClaim",
    "LeaderRole",
    "ScopedJoins",
    "SlotChannel",
    "forwarded",
    "join_scope",
    "refusal",
]

# How long a decided scope is remembered, so a late sibling gets join_expired, not a new round.
_TOMBSTONE_S = 60.0
_MAX_TOMBSTONES = 100_000


class JoinError(ArenaError):
    status, code = 409, "join_failed"


# -- channels ------------------------------------------------------------------------------------


class SlotChannel:
    """Single-producer, single-consumer queue of one connection's public events.

    Args:
        slots: the slots this connection streams; other slots' events are dropped.
        max_queued: backlog cap; past it the connection fails instead of growing.
    """

    def __init__(self, slots: frozenset[Slot], max_queued: int) -> None:
        self.slots = slots
        self._max_queued = max_queued
        self._queue: asyncio.Queue[PublicEvent | None] = asyncio.Queue()
        self._open = set(slots)
        self.started: MatchupStarted | None = None
        self.detached = False
        self.closed = False
        self._unrecorded = False  # an answer of this channel's slots could not be stored

    def publish(self, event: PublicEvent) -> None:
        """Queue ``event`` if it is this connection's; ends the channel after its last slot."""
        if self.closed or self.detached:
            return
        slot = getattr(event, "slot", None)
        if slot is not None and slot not in self.slots:
            return
        if self._queue.qsize() >= self._max_queued:
            self._overflow()
            return
        self._queue.put_nowait(event)
        if isinstance(event, SlotDone):
            self._open.discard(event.slot)
            self._unrecorded = self._unrecorded or event.recorded is False
            if not self._open:
                self._queue.put_nowait(MatchupDone(recorded=False if self._unrecorded else None))
                self.end()

    def fail(self, event: PublicEvent) -> None:
        """Deliver a terminal event (``run_error``) and end the channel."""
        if not self.closed:
            self._queue.put_nowait(event)
            self.end()

    def end(self) -> None:
        if not self.closed:
            self.closed = True
            self._queue.put_nowait(None)

    def _overflow(self) -> None:
        # The client reads slower than the model writes: fail its slots, keep memory bounded.
        for slot in sorted(self._open):
            self._queue.put_nowait(
                SlotError(slot=slot, message="the client fell too far behind the stream")
            )
            self._queue.put_nowait(SlotDone(slot=slot))
        self._queue.put_nowait(MatchupDone())
        self.end()

    def split(self, slot: Slot, max_queued: int) -> SlotChannel:
        """Move ``slot`` (and its queued events) to a new channel; only before consumption."""
        if self.started is not None:
            raise RuntimeError("a channel can only be split before it is consumed")
        other = SlotChannel(frozenset({slot}), max_queued)
        kept: list[PublicEvent | None] = []
        while not self._queue.empty():
            item = self._queue.get_nowait()
            target = other if getattr(item, "slot", None) == slot else None
            if target is not None and item is not None:
                target._queue.put_nowait(item)
                if isinstance(item, SlotDone):
                    target._open.discard(slot)
            else:
                kept.append(item)
        for item in kept:
            self._queue.put_nowait(item)
        self.slots = self.slots - {slot}
        self._open.discard(slot)
        if not other._open:
            other._queue.put_nowait(MatchupDone())
            other.end()
        if not self._open and not self.closed:
            self._queue.put_nowait(MatchupDone())
            self.end()
        return other

    async def events(self, started: MatchupStarted) -> AsyncGenerator[PublicEvent, None]:
        """``started`` first, then the queue until the channel ends; closing it detaches."""
        async for batch in self.batches(started):
            for event in batch:
                yield event

    async def batches(self, started: MatchupStarted) -> AsyncGenerator[list[PublicEvent], None]:
        """The same events as ``events``, each time with all that is already queued.

        A response can then write every waiting event at once: when the loop is busy (many
        rounds, fast models) that is one write for several events instead of one each.
        """
        self.started = started
        try:
            yield [started]
            while True:
                item = await self._queue.get()
                batch: list[PublicEvent] = []
                while item is not None:
                    batch.append(item)
                    if self._queue.empty():
                        break
                    item = self._queue.get_nowait()
                if batch:
                    yield batch
                if item is None:
                    return
        finally:
            self.detached = True

    @property
    def backlog(self) -> int:
        return self._queue.qsize()


# -- join broker ---------------------------------------------------------------------------------


def join_scope(
    secret: bytes, session_id: str, conversation_id: str | None, prompt: str, join_key: str
) -> str:
    """The capability two siblings share: HMAC of everything both requests carry."""
    message = json.dumps([session_id, conversation_id or "", prompt, join_key]).encode()
    return hmac.new(secret, message, hashlib.sha256).hexdigest()


@dataclass(frozen=True)
class JoinHandshake:
    """What the leader publishes to its follower once the round exists."""

    started: MatchupStarted
    channel: SlotChannel


class LeaderRole(Protocol):
    """The sibling that runs the round."""

    @property
    def slot(self) -> Slot: ...

    async def wait_for_follower(self) -> bool: ...

    def publish(self, handshake: JoinHandshake) -> None: ...

    def fail(self, error: BaseException) -> None: ...


@runtime_checkable
class FollowerRole(Protocol):
    """The sibling that streams the other slot of the leader's round."""

    async def handshake(self) -> JoinHandshake: ...


class Joiner(Protocol):
    """Pairs sibling requests: the roles, the wait and the handover."""

    @property
    def enabled(self) -> bool: ...

    def scope(
        self, session_id: str, conversation_id: str | None, prompt: str, join_key: str
    ) -> str: ...

    async def join(self, scope: str, slot: Slot | None = None) -> LeaderRole | FollowerRole:
        """This request's role in ``scope`` (the errors of ``JoinBroker.claim``)."""
        ...


@dataclass
class _Pending:
    created: float
    leader_slot: Slot
    follower_arrived: asyncio.Event = field(default_factory=asyncio.Event)
    handshake: asyncio.Future[JoinHandshake] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    followed: bool = False
    decided: bool = False


@dataclass(frozen=True)
class LeaderClaim:
    scope: str
    _pending: _Pending
    _broker: JoinBroker

    @property
    def slot(self) -> Slot:
        """The slot the leader streams; the follower gets the other one."""
        return self._pending.leader_slot

    async def wait_for_follower(self) -> bool:
        """Wait what is left of the window, then close it; ``True`` if the sibling came."""
        remaining = self._broker.window_s - (self._broker.clock() - self._pending.created)
        if not self._pending.followed and remaining > 0:
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(remaining):
                    await self._pending.follower_arrived.wait()
        self._pending.decided = True
        if not self._pending.followed:
            self._broker.release(self.scope)
        return self._pending.followed

    def publish(self, handshake: JoinHandshake) -> None:
        """Hand the round to the follower and release the scope."""
        if not self._pending.handshake.done():
            self._pending.handshake.set_result(handshake)
        self._broker.release(self.scope)

    def fail(self, error: BaseException) -> None:
        """Forward the leader's pre-stream failure to a waiting follower; release the scope."""
        self._pending.decided = True
        if self._pending.followed and not self._pending.handshake.done():
            self._pending.handshake.set_exception(forwarded(error))
        self._broker.release(self.scope)


@dataclass(frozen=True)
class FollowerClaim:
    scope: str
    _pending: _Pending
    _broker: JoinBroker

    async def handshake(self) -> JoinHandshake:
        """The leader's round, once published.

        Raises:
            JoinError: 504 ``join_leader_timeout`` when the leader never publishes; the
                leader's own error (same status and code) when it failed before streaming.
        """
        try:
            async with asyncio.timeout(self._broker.leader_timeout_s):
                return await asyncio.shield(self._pending.handshake)
        except TimeoutError:
            raise refusal("leader_timeout") from None


def forwarded(error: BaseException) -> ArenaError:
    """The leader's pre-stream failure as its follower reports it (same status and code)."""
    if isinstance(error, ArenaError):
        return ArenaError(
            error.message, status=error.status, code=error.code, details=error.details
        )
    return JoinError(
        "The request holding the shared matchup failed", status=500, code="join_failed"
    )


def refusal(reason: str, slot: Slot | None = None) -> JoinError:
    """Why a sibling gets no role: ``exhausted`` (409 ``join_slots_exhausted``), ``expired``
    (409 ``join_expired``), ``slot_taken`` (409 ``join_slot_taken``, the leader streams
    ``slot``), ``unavailable`` (503 ``join_unavailable``) or ``leader_timeout`` (504
    ``join_leader_timeout``)."""
    if reason == "exhausted":
        return JoinError(
            "Both slots of this join are already claimed", status=409, code="join_slots_exhausted"
        )
    if reason == "expired":
        return JoinError(
            "The join window closed before this request arrived", status=409, code="join_expired"
        )
    if reason == "slot_taken":
        return JoinError(
            f"The sibling request already streams slot {slot}", status=409, code="join_slot_taken"
        )
    if reason == "leader_timeout":
        return JoinError(
            "The request holding the shared matchup never started it",
            status=504,
            code="join_leader_timeout",
        )
    return JoinError(
        "Too many unpaired joins in flight; retry without joinKey",
        status=503,
        code="join_unavailable",
    )


class ScopedJoins:
    """What every broker shares: the join window and the key of the scopes."""

    def __init__(self, window_s: float, secret: bytes) -> None:
        self.window_s = window_s
        self._secret = secret

    @property
    def enabled(self) -> bool:
        return self.window_s > 0

    def scope(
        self, session_id: str, conversation_id: str | None, prompt: str, join_key: str
    ) -> str:
        return join_scope(self._secret, session_id, conversation_id, prompt, join_key)


class JoinBroker(ScopedJoins):
    """Pairs sibling requests by scope. ``claim`` is synchronous; only the waits await.

    Args:
        window_s: how long the leader waits for its sibling.
        max_pending: unpaired scopes held at once; more are refused (503 ``join_unavailable``).
        leader_timeout_s: how long a follower waits for the leader's handshake
            (default: the window plus 30 s).
        clock: monotonic seconds, injectable for tests.
    """

    def __init__(
        self,
        *,
        window_s: float,
        max_pending: int,
        leader_timeout_s: float | None = None,
        clock: Callable[[], float] = time.monotonic,
        secret: bytes | None = None,
    ) -> None:
        super().__init__(window_s, secret or os.urandom(32))
        self.max_pending = max_pending
        self.leader_timeout_s = window_s + 30.0 if leader_timeout_s is None else leader_timeout_s
        self.clock = clock
        self._pending: dict[str, _Pending] = {}
        # Released scopes, remembered so a late sibling is told why: (when, had a follower).
        self._closed: OrderedDict[str, tuple[float, bool]] = OrderedDict()

    def claim(self, scope: str, slot: Slot | None = None) -> LeaderClaim | FollowerClaim:
        """Assign this request's role in ``scope``. Never awaits, so roles cannot race.

        Args:
            slot: the slot this request must stream; ``None`` takes A as leader, B as follower.

        Raises:
            JoinError: 409 ``join_slots_exhausted`` (both roles taken), 409 ``join_expired``
                (the leader stopped waiting), 409 ``join_slot_taken`` (the leader already
                streams ``slot``), 503 ``join_unavailable`` (too many pending).
        """
        self.sweep()
        pending = self._pending.get(scope)
        if pending is not None:
            if pending.followed:
                raise refusal("exhausted")
            if pending.decided:
                raise refusal("expired")
            if slot == pending.leader_slot:
                raise refusal("slot_taken", slot)
            pending.followed = True
            pending.follower_arrived.set()
            return FollowerClaim(scope, pending, self)
        closed = self._closed.get(scope)
        if closed is not None:
            raise refusal("exhausted" if closed[1] else "expired")
        if self.waiting >= self.max_pending:
            raise refusal("unavailable")
        pending = _Pending(created=self.clock(), leader_slot=slot or "A")
        self._pending[scope] = pending
        return LeaderClaim(scope, pending, self)

    async def join(self, scope: str, slot: Slot | None = None) -> LeaderRole | FollowerRole:
        """``claim`` as the ``Joiner`` port has it (still with no ``await`` inside)."""
        return self.claim(scope, slot)

    def release(self, scope: str) -> None:
        pending = self._pending.pop(scope, None)
        if pending is not None:
            self._closed[scope] = (self.clock(), pending.followed)
            self._closed.move_to_end(scope)

    @property
    def waiting(self) -> int:
        """Leaders still waiting for a sibling (what ``max_pending`` bounds)."""
        return sum(1 for p in self._pending.values() if not p.decided)

    @property
    def size(self) -> int:
        """Everything the broker holds; back to 0 once released scopes age out."""
        return len(self._pending) + len(self._closed)

    def sweep(self) -> None:
        """Forget released scopes older than the tombstone time (also run on every claim)."""
        horizon = self.clock() - _TOMBSTONE_S
        while self._closed and (
            next(iter(self._closed.values()))[0] < horizon or len(self._closed) > _MAX_TOMBSTONES
        ):
            self._closed.popitem(last=False)
