"""Rounds of a replica that died: found by the others, their missing answers marked.

Every replica lists the rounds it runs in ``arena:replica:<id>:rounds`` (``control`` adds and
removes them with each round's home key). Each replica looks every ``SWEEP_S`` for such lists
whose replica's heartbeat has expired; one Lua script takes a dead replica's list (so only one
survivor handles it) and the survivor stores the rounds' missing answers as lost
(``arena_api.db.lost``). A list that cannot be stored is put back for the next sweep.
"""

from __future__ import annotations

import asyncio
import logging
import uuid
from collections.abc import Awaitable, Callable, Sequence

from redis.exceptions import RedisError

from arena_api.cluster import PREFIX
from arena_api.cluster.bus import ReplicaBus

__all__ = ["SWEEP_S", "RoundJanitor", "rounds_key"]

SWEEP_S = 5.0
_log = logging.getLogger(__name__)

# KEYS: the rounds list, the heartbeat key. Takes the list only if the replica is dead.
_TAKE = """
if redis.call('EXISTS', KEYS[2]) == 1 then return {} end
local rounds = redis.call('SMEMBERS', KEYS[1])
redis.call('DEL', KEYS[1])
return rounds
"""

MarkLost = Callable[[Sequence[uuid.UUID]], Awaitable[int]]


def rounds_key(replica: str) -> str:
    return f"{PREFIX}replica:{replica}:rounds"


class RoundJanitor:
    """Sweeps the lists of dead replicas, for as long as ``run`` runs."""

    def __init__(self, bus: ReplicaBus, mark_lost: MarkLost) -> None:
        self._bus = bus
        self._mark_lost = mark_lost
        self._take = bus.redis.register_script(_TAKE)

    async def run(self) -> None:
        while True:
            await asyncio.sleep(SWEEP_S)
            try:
                await self.sweep()
            except (RedisError, OSError) as exc:
                _log.warning("round janitor: Redis unavailable (%s)", exc)

    async def sweep(self) -> int:
        """Mark the rounds of every dead replica; how many answers were marked lost."""
        marked = 0
        pattern = rounds_key("*")
        async for raw in self._bus.redis.scan_iter(match=pattern, count=100):
            key = raw.decode()
            replica = key[len(f"{PREFIX}replica:") : -len(":rounds")]
            if replica == self._bus.replica:
                continue
            alive = f"{PREFIX}replica:{replica}:alive"
            taken = await self._take(keys=[key, alive])
            if not taken:
                continue
            ids = [uuid.UUID(item.decode()) for item in taken]
            try:
                marked += await self._mark_lost(ids)
            except Exception:
                _log.exception("round janitor: %d lost rounds not stored; retrying", len(ids))
                await self._bus.redis.sadd(key, *taken)  # type: ignore[misc]
                continue
            _log.warning(
                "replica %s stopped with %d rounds in flight; their missing answers are marked "
                "replica_lost",
                replica,
                len(ids),
            )
        return marked
