"""The control plane across replicas: a stop or steer reaches the replica that runs the round.

A replica that starts a round records itself as the round's home (``arena:round:<id>``, expiring
after ``ROUND_TTL_S`` in case the replica dies) before the round's first event goes out, and
deletes the key when the round ends (it also lists the round under its own id, for the others
to mark its answers lost should it die: ``janitor``). A replica asked about a round it does not
run looks the home up and sends the request to the home's inbox (``bus.ReplicaBus``); the home
acts exactly as for a request of its own (the same token check, the same refusals) and sends the
ack back. A request to a replica that is gone is answered at once (the round ended with it)
instead of waiting.

Outcomes when the request cannot be asked:

* no home (never started, finished, or its replica is gone): ``unknown or finished matchup``;
* the home does not answer within ``ARENA_CLUSTER_TIMEOUT_MS``: code ``cluster_timeout``;
* Redis is unreachable: code ``cluster_unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import secrets
import uuid
from collections.abc import Callable
from typing import Any

from redis.exceptions import RedisError

from arena_api.cluster import PREFIX
from arena_api.cluster.bus import ReplicaBus
from arena_api.cluster.janitor import rounds_key
from arena_api.core.control import UNKNOWN_MATCHUP, ControlOutcome, ControlRequest

__all__ = ["ROUND_TTL_S", "RedisControlRelay"]

#: A round's home key outlives any round (slot timeouts and steers included); it only matters
#: when a replica died without deleting it.
ROUND_TTL_S = 6 * 3600
_log = logging.getLogger(__name__)

Handler = Callable[[ControlRequest], ControlOutcome]


def _home_key(matchup_id: uuid.UUID) -> str:
    return f"{PREFIX}round:{matchup_id}"


class RedisControlRelay:
    """The ``ControlRelay`` port over the replicas' inboxes; ``serve`` answers other replicas."""

    def __init__(self, bus: ReplicaBus) -> None:
        self._bus = bus
        self._pending: dict[str, asyncio.Future[ControlOutcome]] = {}
        self._handler: Handler | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        #: The rounds this replica runs, for the others to mark if it dies (``janitor``).
        self._rounds = rounds_key(bus.replica)
        bus.on("control", self._on_request)
        bus.on("control_ack", self._on_ack)

    def serve(self, handler: Handler) -> None:
        """Answer other replicas' requests with ``handler`` (which acts on rounds here)."""
        self._handler = handler

    # -- the port ----------------------------------------------------------------------------

    async def announce(self, matchup_id: uuid.UUID) -> None:
        async with self._bus.redis.pipeline(transaction=False) as pipe:
            pipe.set(_home_key(matchup_id), self._bus.replica, ex=ROUND_TTL_S)
            pipe.sadd(self._rounds, str(matchup_id))
            await pipe.execute()

    async def withdraw(self, matchup_id: uuid.UUID) -> None:
        try:
            async with self._bus.redis.pipeline(transaction=False) as pipe:
                pipe.delete(_home_key(matchup_id))
                pipe.srem(self._rounds, str(matchup_id))
                await pipe.execute()
        except (RedisError, OSError) as exc:  # it expires on its own
            _log.warning("round %s: its home key stays until it expires: %s", matchup_id, exc)

    async def forward(self, request: ControlRequest) -> ControlOutcome:
        try:
            raw = await self._bus.redis.get(_home_key(request.matchup_id))
            home = raw.decode() if raw is not None else None
            if home is None or home == self._bus.replica:
                return ControlOutcome(False, UNKNOWN_MATCHUP)
            request_id = secrets.token_hex(8)
            future: asyncio.Future[ControlOutcome] = asyncio.get_running_loop().create_future()
            self._pending[request_id] = future
            try:
                body = {
                    "id": request_id,
                    "from": self._bus.replica,
                    "action": request.action,
                    "matchupId": str(request.matchup_id),
                    "token": request.token,
                    "instruction": request.instruction,
                }
                if not await self._bus.send(home, "control", body):
                    return ControlOutcome(False, UNKNOWN_MATCHUP)  # its replica is gone
                return await asyncio.wait_for(future, self._bus.timeout_s)
            finally:
                self._pending.pop(request_id, None)
        except TimeoutError:
            return ControlOutcome(
                False, "the replica running this matchup did not answer", "cluster_timeout"
            )
        except (RedisError, OSError):
            return ControlOutcome(False, "the cluster cannot be reached", "cluster_unavailable")

    # -- the inbox ---------------------------------------------------------------------------

    def _on_ack(self, body: dict[str, Any]) -> None:
        future = self._pending.get(str(body.get("id")))
        if future is not None and not future.done():
            future.set_result(
                ControlOutcome(bool(body.get("ok")), body.get("reason"), body.get("code"))
            )

    def _on_request(self, body: dict[str, Any]) -> None:
        request = ControlRequest(
            action="steer" if body["action"] == "steer" else "stop",
            matchup_id=uuid.UUID(body["matchupId"]),
            token=body.get("token"),
            instruction=body.get("instruction"),
        )
        if self._handler is None:
            return  # not serving yet: the asker times out
        outcome = self._handler(request)
        ack = {"id": body["id"], "ok": outcome.ok, "reason": outcome.reason, "code": outcome.code}
        task = asyncio.create_task(self._ack(str(body["from"]), ack))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ack(self, replica: str, ack: dict[str, Any]) -> None:
        with contextlib.suppress(RedisError, OSError):  # the asker times out on its own
            await self._bus.send(replica, "control_ack", ack)
