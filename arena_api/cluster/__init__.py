"""Several replicas, one arena: the Redis adapters of the ports that keep per-process state.

With ``REDIS_URL`` set, every replica behind a load balancer (no sticky sessions) shares, through
one Redis:

* each replica's inbox and heartbeat (``bus.ReplicaBus``), over which the others talk to it;
* the rate limits' windows (``limits.RedisRateLimiter``), so a client's budget is the
  deployment's, not one replica's (wrong passphrases and the auto-judge's pace too);
* the control plane (``control.RedisControlRelay``): a stop or steer that reaches a replica which
  does not run the round is carried to the one that does, and its ack brought back;
* slot join (``join.RedisJoinBroker``): siblings on different replicas share one matchup;
* live feeds (``feeds.RedisFeeds``): a page's feed is readable from any replica;
* the rounds of a replica that died (``janitor.RoundJanitor``): their missing answers marked.

Reflex keeps the UI's state in the same Redis (``rxconfig.py``).

PostgreSQL stays the store of record; Redis holds only what lives as long as a round or a rate
window, and every key expires. Without ``REDIS_URL`` none of this is imported or started, and one
process keeps it all in memory, as fast as before.

Keys and channels all start with ``arena:``. Each replica has a random id for its lifetime.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
from collections.abc import AsyncIterator, Awaitable, Callable
from dataclasses import dataclass

from redis.asyncio import Redis
from redis.exceptions import RedisError

from arena_api.core.errors import ArenaError

__all__ = ["PREFIX", "Cluster", "ClusterUnavailable", "every", "open_cluster"]

PREFIX = "arena:"
_log = logging.getLogger(__name__)


class ClusterUnavailable(ArenaError):
    status, code = 503, "cluster_unavailable"


@dataclass(frozen=True)
class Cluster:
    """This replica's handle on the shared Redis."""

    redis: Redis
    replica: str
    timeout_s: float

    async def reachable(self) -> bool:
        """Redis answers a PING within 2 s."""
        try:
            async with asyncio.timeout(2):
                await self.redis.ping()  # type: ignore[misc]
            return True
        except (RedisError, OSError, TimeoutError):
            return False


async def every(period_s: float, step: Callable[[], Awaitable[object]], what: str) -> None:
    """Run ``step`` every ``period_s`` seconds until cancelled; Redis failing is logged."""
    while True:
        await asyncio.sleep(period_s)
        try:
            await step()
        except (RedisError, OSError) as exc:
            _log.warning("%s: Redis unavailable (%s)", what, exc)


@contextlib.asynccontextmanager
async def open_cluster(url: str, timeout_s: float) -> AsyncIterator[Cluster]:
    """Connect to Redis (checked with a PING) for as long as the block runs.

    Raises:
        ClusterUnavailable: Redis cannot be reached at start.
    """
    redis = Redis.from_url(url, health_check_interval=30, socket_connect_timeout=5)
    try:
        await redis.ping()  # type: ignore[misc]  # the asyncio client's ping is awaitable
    except (RedisError, OSError) as exc:
        await redis.aclose()
        raise ClusterUnavailable(f"Redis at REDIS_URL cannot be reached: {exc}") from None
    replica = secrets.token_hex(8)
    _log.info("cluster mode: replica %s on Redis", replica)
    try:
        yield Cluster(redis=redis, replica=replica, timeout_s=timeout_s)
    finally:
        await redis.aclose()
