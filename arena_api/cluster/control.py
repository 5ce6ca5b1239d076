"""The control plane across replicas: a stop or steer reaches the replica that runs the round.

A replica that starts a round records itself as the round's home (``arena:round:<id>``, expiring
after ``ROUND_TTL_S`` in case the replica dies) before the round's first event goes out, and
deletes the key when the round ends. A replica asked about a round it does not run looks the home
up and publishes the request on the home's own channel (``arena:replica:<id>:control``); the home
acts exactly as for a request of its own (the same token check, the same refusals) and publishes
the ack on the asker's reply channel. Pub/sub fits: a request is only useful while both are alive,
and ``PUBLISH`` says how many listened, so a request to a replica that died is answered at once
(the round ended with it) instead of waiting.

Outcomes when the request cannot be asked:

* no home (never started, finished, or its replica is gone): ``unknown or finished matchup``;
* the home does not answer within ``ARENA_CLUSTER_TIMEOUT_MS``: code ``cluster_timeout``;
* Redis is unreachable: code ``cluster_unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import secrets
import uuid
from collections.abc import Callable
from typing import Any

from redis.asyncio.client import PubSub
from redis.exceptions import RedisError

from arena_api.cluster import PREFIX, Cluster
from arena_api.core.control import UNKNOWN_MATCHUP, ControlOutcome, ControlRequest

__all__ = ["ROUND_TTL_S", "RedisControlRelay"]

#: A round's home key outlives any round (slot timeouts and steers included); it only matters
#: when a replica died without deleting it.
ROUND_TTL_S = 6 * 3600
_RECONNECT_S = 1.0
_log = logging.getLogger(__name__)

Handler = Callable[[ControlRequest], ControlOutcome]


def _home_key(matchup_id: uuid.UUID) -> str:
    return f"{PREFIX}round:{matchup_id}"


def _channel(replica: str, kind: str) -> str:
    return f"{PREFIX}replica:{replica}:{kind}"


class RedisControlRelay:
    """The ``ControlRelay`` port over Redis. ``start`` it with the handler that acts here."""

    def __init__(self, cluster: Cluster) -> None:
        self._redis = cluster.redis
        self._replica = cluster.replica
        self._timeout_s = cluster.timeout_s
        self._requests = _channel(self._replica, "control")
        self._replies = _channel(self._replica, "replies")
        self._pending: dict[str, asyncio.Future[ControlOutcome]] = {}
        self._handler: Handler | None = None
        self._listener: asyncio.Task[None] | None = None
        self._subscribed = asyncio.Event()
        self._tasks: set[asyncio.Task[None]] = set()

    async def start(self, handler: Handler) -> None:
        """Listen for requests (answered by ``handler``) and for replies to our own."""
        self._handler = handler
        self._listener = asyncio.create_task(self._listen(), name="control-relay")
        await self._subscribed.wait()

    async def close(self) -> None:
        if self._listener is not None:
            self._listener.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._listener
        for future in self._pending.values():
            future.cancel()

    # -- the port ----------------------------------------------------------------------------

    async def announce(self, matchup_id: uuid.UUID) -> None:
        await self._redis.set(_home_key(matchup_id), self._replica, ex=ROUND_TTL_S)

    async def withdraw(self, matchup_id: uuid.UUID) -> None:
        try:
            await self._redis.delete(_home_key(matchup_id))
        except (RedisError, OSError) as exc:  # it expires on its own
            _log.warning("round %s: its home key stays until it expires: %s", matchup_id, exc)

    async def forward(self, request: ControlRequest) -> ControlOutcome:
        try:
            home = await self._redis.get(_home_key(request.matchup_id))
            if home is None or home.decode() == self._replica:
                return ControlOutcome(False, UNKNOWN_MATCHUP)
            request_id = secrets.token_hex(8)
            future: asyncio.Future[ControlOutcome] = asyncio.get_running_loop().create_future()
            self._pending[request_id] = future
            try:
                listeners = await self._redis.publish(
                    _channel(home.decode(), "control"), self._encode(request_id, request)
                )
                if not listeners:  # its replica is gone, and the round with it
                    return ControlOutcome(False, UNKNOWN_MATCHUP)
                return await asyncio.wait_for(future, self._timeout_s)
            finally:
                self._pending.pop(request_id, None)
        except TimeoutError:
            return ControlOutcome(
                False, "the replica running this matchup did not answer", "cluster_timeout"
            )
        except (RedisError, OSError):
            return ControlOutcome(False, "the cluster cannot be reached", "cluster_unavailable")

    # -- listening ---------------------------------------------------------------------------

    async def _listen(self) -> None:
        while True:
            pubsub: PubSub = self._redis.pubsub(ignore_subscribe_messages=True)
            try:
                await pubsub.subscribe(self._requests, self._replies)
                self._subscribed.set()
                async for message in pubsub.listen():
                    self._dispatch(message)
            except (RedisError, OSError) as exc:
                _log.error("control relay: Redis connection lost (%s); reconnecting", exc)
                await asyncio.sleep(_RECONNECT_S)
            finally:
                with contextlib.suppress(RedisError, OSError):
                    await pubsub.aclose()  # type: ignore[no-untyped-call]

    def _dispatch(self, message: dict[str, Any]) -> None:
        if message.get("type") != "message":
            return
        try:
            body = json.loads(message["data"])
        except (ValueError, TypeError):
            _log.warning("control relay: unreadable message dropped")
            return
        channel = message["channel"].decode()
        if channel == self._replies:
            future = self._pending.get(str(body.get("id")))
            if future is not None and not future.done():
                future.set_result(
                    ControlOutcome(bool(body.get("ok")), body.get("reason"), body.get("code"))
                )
            return
        task = asyncio.create_task(self._answer(body))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _answer(self, body: dict[str, Any]) -> None:
        assert self._handler is not None
        try:
            request = ControlRequest(
                action="steer" if body["action"] == "steer" else "stop",
                matchup_id=uuid.UUID(body["matchupId"]),
                token=body.get("token"),
                instruction=body.get("instruction"),
            )
            reply_to, request_id = str(body["replyTo"]), str(body["id"])
        except (KeyError, ValueError, TypeError):
            _log.warning("control relay: malformed request dropped")
            return
        outcome = self._handler(request)
        reply = {"id": request_id, "ok": outcome.ok, "reason": outcome.reason, "code": outcome.code}
        with contextlib.suppress(RedisError, OSError):  # the asker times out on its own
            await self._redis.publish(reply_to, json.dumps(reply))

    def _encode(self, request_id: str, request: ControlRequest) -> str:
        return json.dumps(
            {
                "id": request_id,
                "replyTo": self._replies,
                "action": request.action,
                "matchupId": str(request.matchup_id),
                "token": request.token,
                "instruction": request.instruction,
            }
        )
