"""Rounds of a replica that died: found by the others, their missing answers marked.

Every round a replica of a cluster runs carries its id (``matchups.replica``), and a running
replica is listed in ``arena:replicas`` with a heartbeat (``bus``). Each replica looks every
``SWEEP_S`` for listed replicas whose heartbeat has expired; one Lua script takes a dead replica
off the list (so only one survivor handles it) and the survivor stores its rounds' missing
answers as lost (``arena_api.db.lost``). A replica whose rounds cannot be stored is put back for
the next sweep. A replica that stops normally leaves the list itself (its rounds were drained).
"""

from __future__ import annotations

import logging
from collections.abc import Awaitable, Callable

from arena_api.cluster.bus import REPLICAS, ReplicaBus, alive_key

__all__ = ["SWEEP_S", "RoundJanitor"]

SWEEP_S = 5.0
_log = logging.getLogger(__name__)

# KEYS: the list of replicas, the replica's heartbeat. ARGV: the replica. 1: taken (it is dead).
_TAKE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return 0 end
return redis.call('SREM', KEYS[1], ARGV[1])
"""

MarkLost = Callable[[str], Awaitable[int]]


class RoundJanitor:
    """Sweeps for dead replicas (``sweep``, every ``SWEEP_S`` seconds)."""

    def __init__(self, bus: ReplicaBus, mark_lost: MarkLost) -> None:
        self._bus = bus
        self._mark_lost = mark_lost
        self._take = bus.redis.register_script(_TAKE)

    async def sweep(self) -> int:
        """Mark the rounds of every dead replica; how many answers were marked lost."""
        marked = 0
        redis = self._bus.redis
        for raw in await redis.smembers(REPLICAS):  # type: ignore[misc]
            replica = raw.decode()
            if replica == self._bus.replica:
                continue
            if not await self._take(keys=[REPLICAS, alive_key(replica)], args=[replica]):
                continue
            try:
                lost = await self._mark_lost(replica)
            except Exception:
                _log.exception("round janitor: replica %s's rounds not marked; retrying", replica)
                await redis.sadd(REPLICAS, replica)  # type: ignore[misc]
                continue
            marked += lost
            if lost:
                _log.warning(
                    "replica %s stopped with rounds in flight: %d answers marked replica_lost",
                    replica,
                    lost,
                )
        return marked
