"""Live feeds across replicas: the text of a streaming round, readable from any replica.

The page's ``EventSource`` for a round's live feed (``arena_api.services.live_feeds``) may reach a
replica that does not run the round. So with ``REDIS_URL`` the replica that runs it also appends the
text to a Redis stream (``arena:feed:<ticket>``), at most every ``FLUSH_S`` (one ``XADD`` of all the
text that came meanwhile, so a fast pair of models costs tens of writes a second, not hundreds), and
an ``end`` entry when the round ends, after which the stream expires with the feed's grace period.
Another replica answers the page from the stream: the text so far, then each entry as it comes.

A replica that follows a feed from the stream marks it followed (``arena:feed:<ticket>:followed``),
and the writer reads that mark with each flush: the round's state then knows a page reads the feed,
as it knows of a page on its own replica.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import AsyncIterator

from redis.asyncio import Redis
from redis.exceptions import RedisError

from arena_api.cluster import PREFIX

__all__ = ["FLUSH_S", "FeedWriter", "RedisFeeds"]

FLUSH_S = 0.025
#: A feed that never ends (its replica died) is dropped after this long.
LIVE_TTL_S = 3600
_BLOCK_MS = 15_000
_log = logging.getLogger(__name__)


def _key(ticket: str) -> str:
    return f"{PREFIX}feed:{ticket}"


class FeedWriter:
    """Appends one feed's text to its stream, batched."""

    def __init__(self, redis: Redis, ticket: str, grace_s: float) -> None:
        self._redis = redis
        self._key = _key(ticket)
        self._grace_s = grace_s
        self._pending: dict[str, list[str]] = {}
        self._ended = False
        #: A page on another replica reads this feed.
        self.followed = False
        # The page may ask another replica for the feed before its first word: the stream
        # exists from the start (an entry the readers skip).
        loop = asyncio.get_running_loop()
        self._task: asyncio.Task[None] | None = loop.create_task(self._open())

    async def _open(self) -> None:
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.xadd(self._key, {"open": "1"})
                pipe.expire(self._key, LIVE_TTL_S)
                await pipe.execute()
        except (RedisError, OSError) as exc:
            _log.warning("live feed not shared with other replicas: %s", exc)
            return
        await self._flush()  # what came meanwhile

    def append(self, slot: str, text: str) -> None:
        self._pending.setdefault(slot, []).append(text)
        self._schedule()

    def end(self) -> None:
        self._ended = True
        self._schedule()

    def _schedule(self) -> None:
        if self._task is None or self._task.done():
            self._task = asyncio.get_running_loop().create_task(self._flush())

    async def _flush(self) -> None:
        await asyncio.sleep(FLUSH_S)
        while self._pending or self._ended:
            fields = {slot: "".join(parts) for slot, parts in self._pending.items()}
            self._pending = {}
            ended, self._ended = self._ended, False
            try:
                async with self._redis.pipeline(transaction=False) as pipe:
                    if fields:
                        pipe.xadd(self._key, fields)  # type: ignore[arg-type]
                    if ended:
                        pipe.xadd(self._key, {"end": "1"})
                    pipe.expire(self._key, round(self._grace_s) if ended else LIVE_TTL_S)
                    pipe.exists(f"{self._key}:followed")
                    results = await pipe.execute()
                self.followed = self.followed or bool(results[-1])
            except (RedisError, OSError) as exc:
                _log.warning("live feed not shared with other replicas: %s", exc)
                return


class RedisFeeds:
    """Feeds in Redis: writers for the rounds streaming here, readers for any."""

    def __init__(self, redis: Redis) -> None:
        self._redis = redis

    def writer(self, ticket: str, grace_s: float) -> FeedWriter:
        return FeedWriter(self._redis, ticket, grace_s)

    async def follow(self, ticket: str) -> AsyncIterator[tuple[str, str]] | None:
        """(slot, text) pieces: the text so far, then as it comes, until the round ends;
        ``None`` when no replica has this feed."""
        key = _key(ticket)
        try:
            async with self._redis.pipeline(transaction=False) as pipe:
                pipe.exists(key)
                pipe.set(f"{key}:followed", "1", ex=LIVE_TTL_S)
                exists, _ = await pipe.execute()
        except (RedisError, OSError):
            return None
        return self._read(key) if exists else None

    async def _read(self, key: str) -> AsyncIterator[tuple[str, str]]:
        last = "0"
        while True:
            try:
                answer = await self._redis.xread({key: last}, block=_BLOCK_MS)
            except (RedisError, OSError) as exc:
                _log.warning("live feed from another replica broke off: %s", exc)
                return
            if not answer:
                with contextlib.suppress(RedisError, OSError):
                    if not await self._redis.exists(key):
                        return  # expired: its replica is gone
                continue
            for entry_id, fields in answer[0][1]:
                last = entry_id
                for name, value in fields.items():
                    if name == b"end":
                        return
                    if name != b"open":
                        yield name.decode(), value.decode()
