"""Each replica's inbox: its own Redis pub/sub channel and one all replicas share, messages
routed by their ``kind``.

Replicas talk to one another only about live things (a stop for a round, a joined sibling's
events), which matter only while both ends are alive; pub/sub fits that, and ``PUBLISH`` tells
the sender how many replicas listened, so a message to a replica that is gone is known at once
and a broadcast knows how many answers to expect. Messages from one sender task arrive in the
order it sent them.

A replica also keeps a heartbeat key (``arena:replica:<id>:alive``, refreshed every
``HEARTBEAT_S`` and expiring after ``ALIVE_TTL_S``) and its id in ``arena:replicas`` while it
runs: what waits on another replica (a follower streaming a round the other one runs) asks
``alive`` to tell a slow round from a dead replica, and the others find a replica that died
without leaving (``janitor``).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
from collections.abc import Callable
from typing import Any

from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from arena_api.cluster import PREFIX, Cluster, every

__all__ = ["ALIVE_TTL_S", "HEARTBEAT_S", "REPLICAS", "ReplicaBus", "alive_key"]

HEARTBEAT_S = 1.0
#: A replica whose loop stalls this long (less one beat) counts as dead, and the answers of its
#: rounds in flight as lost: generous, since a live replica taken for dead loses them too.
ALIVE_TTL_S = 8
_RECONNECT_S = 1.0
#: The ids of the replicas running (a set), and the channel they all listen on.
REPLICAS = f"{PREFIX}replicas"
_log = logging.getLogger(__name__)

Handler = Callable[[dict[str, Any]], None]


def _inbox(replica: str) -> str:
    return f"{PREFIX}replica:{replica}"


def alive_key(replica: str) -> str:
    return f"{PREFIX}replica:{replica}:alive"


class ReplicaBus:
    """This replica's inbox, and sending to other replicas' inboxes."""

    def __init__(self, cluster: Cluster) -> None:
        self.redis = cluster.redis
        self.replica = cluster.replica
        self.timeout_s = cluster.timeout_s
        self._handlers: dict[str, Handler] = {}
        self._subscribed = asyncio.Event()
        self._tasks: list[asyncio.Task[None]] = []

    def on(self, kind: str, handler: Handler) -> None:
        """Call ``handler`` (in the listener's task: it must not block) for each ``kind``."""
        self._handlers[kind] = handler

    async def start(self) -> None:
        await self._beat()
        self._tasks = [
            asyncio.create_task(self._listen(), name="replica-bus"),
            asyncio.create_task(every(HEARTBEAT_S, self._beat, "heartbeat"), name="heartbeat"),
        ]
        await self._subscribed.wait()

    async def close(self) -> None:
        for task in self._tasks:
            task.cancel()
        for task in self._tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await task
        with contextlib.suppress(RedisError, OSError):  # a replica that leaves, not one that died
            await self.redis.srem(REPLICAS, self.replica)  # type: ignore[misc]
            await self.redis.delete(alive_key(self.replica))

    async def send(self, replica: str, kind: str, body: dict[str, Any]) -> int:
        """Publish to ``replica``'s inbox; how many listened (0: the replica is gone).

        Raises:
            RedisError, OSError: Redis cannot be reached.
        """
        message = json.dumps({"kind": kind, **body}, separators=(",", ":"))
        listeners: int = await self.redis.publish(_inbox(replica), message)
        return listeners

    async def broadcast(self, kind: str, body: dict[str, Any]) -> int:
        """Publish to every replica, this one included; how many listened.

        Raises:
            RedisError, OSError: Redis cannot be reached.
        """
        message = json.dumps({"kind": kind, **body}, separators=(",", ":"))
        listeners: int = await self.redis.publish(REPLICAS, message)
        return listeners

    async def alive(self, replica: str) -> bool:
        """``replica`` beat within the last ``ALIVE_TTL_S`` seconds (True when Redis cannot
        tell: an unreachable Redis is not a dead replica)."""
        try:
            return bool(await self.redis.exists(alive_key(replica)))
        except (RedisError, OSError):
            return True

    async def _beat(self) -> None:
        # The listing too, each time: a Redis that restarted (it keeps nothing) lists us again.
        async with self.redis.pipeline(transaction=False) as pipe:
            pipe.set(alive_key(self.replica), "1", ex=ALIVE_TTL_S)
            pipe.sadd(REPLICAS, self.replica)
            _, relisted = await pipe.execute()
        if relisted and self._tasks:
            _log.warning(
                "replica %s was not listed in Redis (Redis restarted, or this process stalled "
                "for %d s and was taken for dead); listed again",
                self.replica,
                ALIVE_TTL_S,
            )

    async def _listen(self) -> None:
        while True:
            pubsub: PubSub = self.redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(_inbox(self.replica), REPLICAS)
                self._subscribed.set()
                async for message in pubsub.listen():
                    self._dispatch(message)
            except (RedisError, OSError) as exc:
                _log.error("replica inbox: Redis connection lost (%s); reconnecting", exc)
                await asyncio.sleep(_RECONNECT_S)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        try:
            body = json.loads(message["data"])
            handler = self._handlers[body["kind"]]
        except (ValueError, TypeError, KeyError):
            _log.warning("replica inbox: unreadable message dropped")
            return
        try:
            handler(body)
        except Exception:
            _log.exception("replica inbox: a %s message failed", body["kind"])
