"""The page's event socket: who may open it, and a session that survives a reconnect.

Reflex links each socket to the page's session token, and takes a second socket with a token
that is still linked for a duplicated browser tab: it hands that socket a new token, whose state
is empty. A socket that moves (a proxy reloads, a replica restarts behind the load balancer, the
network blinks) reconnects within milliseconds, often before the server that held the old one
has seen it close, and the page then lost its round: it showed the welcome screen mid-answer.

These token managers give the old link a moment to go (``RELEASE_WAIT_S``) before they call the
newcomer a duplicate, and with Redis they take over at once a link whose replica is dead (each
replica keeps a subscription of its own open while it lives; a killed one leaves its links in
Redis for the token's whole lifetime). A duplicated tab still gets its own token, after the wait.

Only the page's own origin, and those ``ARENA_CORS_ORIGINS`` lists, may open the socket at all
(``origin_check``): Reflex let any site open it.
"""

from __future__ import annotations

import asyncio
import contextlib
import pickle
import time
from collections.abc import Awaitable, Callable
from typing import Any

from reflex.app import App
from reflex.utils.token_manager import (
    LocalTokenManager,
    RedisTokenManager,
    SocketRecord,
    TokenManager,
)

#: How long a socket waits for its token's old socket to be let go before it is taken for a
#: duplicated tab. A moved socket's old one goes within milliseconds, or a second or two on a
#: replica under load; a duplicated tab's first render waits this long once.
RELEASE_WAIT_S = 3.0
POLL_S = 0.05
#: A replica subscribes to this channel, plus its instance id, for as long as it lives.
PRESENCE_CHANNEL = "arena:reflex-replica:"


async def _until(released: Callable[[], Awaitable[bool]], wait_s: float) -> None:
    """Poll ``released`` until it holds or ``wait_s`` has passed (what it reads may change in
    another process, so there is no event to wait for)."""
    deadline = time.monotonic() + wait_s
    while not await released() and time.monotonic() < deadline:  # noqa: ASYNC110
        await asyncio.sleep(POLL_S)


class PatientLocalTokenManager(LocalTokenManager):
    """One process: a token still linked to another socket of this process waits for it."""

    async def link_token_to_sid(self, token: str, sid: str) -> str | None:
        async def released() -> bool:
            record = self.token_to_socket.get(token)
            return record is None or record.sid == sid

        await _until(released, RELEASE_WAIT_S)
        return await super().link_token_to_sid(token, sid)


class PatientRedisTokenManager(RedisTokenManager):
    """Replicas on Redis: a token linked on a live replica waits for it; one linked on a dead
    replica is taken over."""

    _presence: asyncio.Task[None] | None = None
    _present: asyncio.Event | None = None

    async def link_token_to_sid(self, token: str, sid: str) -> str | None:
        await self._announce_presence()
        key = self._get_redis_key(token)

        async def released() -> bool:
            try:
                raw = await self.redis.get(key)
                if raw is None:
                    return True
                record: SocketRecord = pickle.loads(raw)
                if record.sid == sid or await self._lives(record, token):
                    return record.sid == sid
                await self.redis.delete(key)  # its replica is gone, or its delete is on its way
                return True
            except Exception:  # Reflex's own link says what a Redis failure means
                return True

        await _until(released, RELEASE_WAIT_S)
        return await super().link_token_to_sid(token, sid)

    async def _lives(self, record: SocketRecord, token: str) -> bool:
        """Whether ``record`` is a live socket: this replica knows its own; another replica's
        lives as long as that replica does."""
        if record.instance_id == self.instance_id:
            return self.sid_to_token.get(record.sid) == token
        counts: list[tuple[Any, int]] = await self.redis.pubsub_numsub(
            PRESENCE_CHANNEL + record.instance_id
        )
        return bool(counts and counts[0][1])

    async def _announce_presence(self) -> None:
        """Subscribe to this replica's presence channel (once; the subscription lasts as long
        as the process, so other replicas can tell whether it lives)."""
        if self._present is None:
            self._present = asyncio.Event()
            self._presence = asyncio.create_task(self._stay_present(self._present))
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(self._present.wait(), RELEASE_WAIT_S)

    async def _stay_present(self, present: asyncio.Event) -> None:
        while True:
            try:
                async with self.redis.pubsub() as pubsub:
                    await pubsub.subscribe(PRESENCE_CHANNEL + self.instance_id)
                    present.set()
                    async for _ in pubsub.listen():
                        pass
            except Exception:  # Redis went away: try again, as Reflex's own listeners do
                await asyncio.sleep(1.0)

    async def close(self) -> None:
        if self._presence is not None:
            self._presence.cancel()
        await super().close()


def origin_check(trusted: frozenset[str]) -> Callable[[str, dict[str, Any]], bool]:
    """Whether a page of an origin may open the event socket: the page's own (its host is the
    one the request names) or one ``trusted`` with the person's cookies (``ARENA_CORS_ORIGINS``
    but ``*``). A WebSocket carries the person's cookies from any site, and browsers apply no
    CORS to it."""

    def allowed(origin: str, environ: dict[str, Any]) -> bool:
        host = environ.get("HTTP_HOST", "").lower()
        scheme, _, rest = origin.lower().partition("://")
        return (scheme in ("http", "https") and rest == host) or origin.lower() in trusted

    return allowed


def install(app: App, trusted: frozenset[str] = frozenset()) -> None:
    """Put the patient token manager of Reflex's kind in place and let only the page's own
    origin (and ``trusted`` ones) open the event socket; before any socket connects."""
    if app.sio is not None:
        app.sio.eio.cors_allowed_origins = origin_check(trusted)
    namespace = app.event_namespace
    if namespace is None:
        return
    current: TokenManager = namespace._token_manager
    patient: TokenManager
    if isinstance(current, RedisTokenManager):
        patient = PatientRedisTokenManager(current.redis)
    else:
        patient = PatientLocalTokenManager()  # type: ignore[no-untyped-call]  # Reflex's __init__
    patient.instance_id = current.instance_id
    namespace._token_manager = patient
