"""Rate limits every replica counts together: the windows of ``core.ratelimit`` in Redis.

Each (route group, client, window) is a sorted set of request times, at most as many as the
window allows, that expires with the window. One Lua script per request drops the times that
left each window, refuses when a window is full (``Retry-After`` from its oldest time, rounded
up to the second, as in one process) or else records the request in every window: atomic, so two
replicas can never both admit the last request of a budget. Time is Redis' own clock, the same
for every replica.

If Redis cannot be reached the request is admitted and the failure logged (at most once a
minute): a rate limit protects the arena; it must not take it down.
"""

from __future__ import annotations

import logging
import secrets
import time

from redis.asyncio import Redis
from redis.exceptions import RedisError

from arena_api.cluster import PREFIX
from arena_api.core.ratelimit import Limit, Refusal

__all__ = ["RedisRateLimiter"]

_log = logging.getLogger(__name__)
_LOG_EVERY_S = 60.0

# KEYS: one sorted set per window. ARGV: count (1 or 0), member, then (allowed, window ms) pairs.
# Returns {window index (1-based), seconds to wait} when refused, else {0, 0}.
_SCRIPT = """
local t = redis.call('TIME')
local now = tonumber(t[1]) * 1000 + tonumber(t[2]) / 1000
local refused, wait = 0, 0
for i, key in ipairs(KEYS) do
    local allowed = tonumber(ARGV[1 + 2 * i])
    local window = tonumber(ARGV[2 + 2 * i])
    redis.call('ZREMRANGEBYSCORE', key, '-inf', now - window)
    if redis.call('ZCARD', key) >= allowed then
        local oldest = tonumber(redis.call('ZRANGE', key, 0, 0, 'WITHSCORES')[2])
        local seconds = math.max(1, math.ceil((oldest + window - now) / 1000))
        if seconds > wait then
            refused, wait = i, seconds
        end
    end
end
if refused == 0 and ARGV[1] == '1' then
    for i, key in ipairs(KEYS) do
        local allowed = tonumber(ARGV[1 + 2 * i])
        local window = tonumber(ARGV[2 + 2 * i])
        redis.call('ZADD', key, now, ARGV[2])
        redis.call('ZREMRANGEBYRANK', key, 0, -allowed - 1)
        redis.call('PEXPIRE', key, math.ceil(window))
    end
end
return {refused, wait}
"""


class RedisRateLimiter:
    """The ``Limiter`` port over Redis, for every replica of a cluster."""

    def __init__(self, redis: Redis, limits: tuple[Limit, ...], *, name: str = "rl") -> None:
        self.limits = limits
        self._script = redis.register_script(_SCRIPT)
        self._prefix = f"{PREFIX}{name}:"
        self._windows = [
            str(arg) for limit in limits for arg in (limit.count, limit.window_s * 1000)
        ]
        self._logged_at = -_LOG_EVERY_S

    @property
    def enabled(self) -> bool:
        return bool(self.limits)

    async def check(self, group: str, client: str) -> Refusal | None:
        return await self._consider(group, client, count=True)

    async def peek(self, group: str, client: str) -> Refusal | None:
        return await self._consider(group, client, count=False)

    async def _consider(self, group: str, client: str, *, count: bool) -> Refusal | None:
        if not self.limits:
            return None
        base = f"{self._prefix}{group}:{client}:"
        keys = [f"{base}{limit.window_s:g}" for limit in self.limits]
        # A unique member: two requests in the same microsecond are still two.
        args = ["1" if count else "0", secrets.token_hex(8), *self._windows]
        try:
            refused, wait = await self._script(keys=keys, args=args)
        except (RedisError, OSError) as exc:
            self._log_failure(exc)
            return None
        if not refused:
            return None
        return Refusal(self.limits[int(refused) - 1], int(wait))

    def _log_failure(self, exc: BaseException) -> None:
        now = time.monotonic()
        if now - self._logged_at >= _LOG_EVERY_S:
            self._logged_at = now
            _log.error("rate limits not counted: Redis is unavailable (%s)", exc)
