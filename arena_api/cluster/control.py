"""The control plane across replicas: a stop or steer reaches the replica that runs the round.

A replica asked about a round it does not run broadcasts the request to every replica
(``bus.ReplicaBus``): the one running the round acts exactly as for a request of its own (the same
token check, the same refusals) and sends its ack back; each other one says the round is not
there. So a round costs nothing in Redis while it runs (control requests are rare, rounds are
not), and a request is answered as soon as the ack comes, or every other replica declined.

Outcomes when the request cannot be asked:

* no replica runs it (never started, finished, or its replica is gone):
  ``unknown or finished matchup``, as soon as every listening replica said so;
* a replica does not answer within ``ARENA_CLUSTER_TIMEOUT_MS``: code ``cluster_timeout``;
* Redis is unreachable: code ``cluster_unavailable``.
"""

from __future__ import annotations

import asyncio
import contextlib
import secrets
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

from redis.exceptions import RedisError

from arena_api.cluster.bus import ReplicaBus
from arena_api.core.control import UNKNOWN_MATCHUP, ControlOutcome, ControlRequest

__all__ = ["RedisControlRelay"]

#: What a replica answers when ``handler`` returns None (the round does not run there).
Handler = Callable[[ControlRequest], ControlOutcome | None]


@dataclass
class _Asked:
    """A request this replica broadcast, until its ack or every other replica declined."""

    answer: asyncio.Future[ControlOutcome] = field(
        default_factory=lambda: asyncio.get_running_loop().create_future()
    )
    declined: int = 0
    others: int | None = None  # known once the broadcast said how many listened

    def expect(self, others: int) -> None:
        """How many other replicas heard the request (and so will answer)."""
        self.others = others
        self._settle_if_all_declined()

    def decline(self) -> None:
        self.declined += 1
        self._settle_if_all_declined()

    def _settle_if_all_declined(self) -> None:
        if self.others is not None and self.declined >= self.others:
            self.settle(ControlOutcome(False, UNKNOWN_MATCHUP))

    def settle(self, outcome: ControlOutcome) -> None:
        if not self.answer.done():
            self.answer.set_result(outcome)


class RedisControlRelay:
    """The ``ControlRelay`` port over the replicas' inboxes; ``serve`` answers the others."""

    def __init__(self, bus: ReplicaBus) -> None:
        self._bus = bus
        self._asked: dict[str, _Asked] = {}
        self._handler: Handler | None = None
        self._tasks: set[asyncio.Task[None]] = set()
        bus.on("control", self._on_request)
        bus.on("control_ack", self._on_ack)

    @property
    def replica(self) -> str:
        return self._bus.replica

    def serve(self, handler: Handler) -> None:
        """Answer other replicas' requests with ``handler`` (None: not running here)."""
        self._handler = handler

    async def forward(self, request: ControlRequest) -> ControlOutcome:
        request_id = secrets.token_hex(8)
        asked = self._asked[request_id] = _Asked()
        body = {
            "id": request_id,
            "from": self._bus.replica,
            "action": request.action,
            "matchupId": str(request.matchup_id),
            "token": request.token,
            "instruction": request.instruction,
        }
        try:
            asked.expect(await self._bus.broadcast("control", body) - 1)  # not this one
            return await asyncio.wait_for(asked.answer, self._bus.timeout_s)
        except TimeoutError:
            return ControlOutcome(
                False, "the replica running this matchup did not answer", "cluster_timeout"
            )
        except (RedisError, OSError):
            return ControlOutcome(False, "the cluster cannot be reached", "cluster_unavailable")
        finally:
            del self._asked[request_id]

    # -- the inbox ---------------------------------------------------------------------------

    def _on_ack(self, body: dict[str, Any]) -> None:
        asked = self._asked.get(str(body.get("id")))
        if asked is None:
            return
        if not body.get("here"):
            asked.decline()
            return
        asked.settle(ControlOutcome(bool(body.get("ok")), body.get("reason"), body.get("code")))

    def _on_request(self, body: dict[str, Any]) -> None:
        asker = str(body["from"])
        if asker == self._bus.replica or self._handler is None:
            return  # our own broadcast; or not serving yet, and the asker times out
        request = ControlRequest(
            action="steer" if body["action"] == "steer" else "stop",
            matchup_id=uuid.UUID(body["matchupId"]),
            token=body.get("token"),
            instruction=body.get("instruction"),
        )
        outcome = self._handler(request)
        ack: dict[str, Any] = {"id": body["id"], "here": outcome is not None}
        if outcome is not None:
            ack |= {"ok": outcome.ok, "reason": outcome.reason, "code": outcome.code}
        task = asyncio.create_task(self._ack(asker, ack))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _ack(self, replica: str, ack: dict[str, Any]) -> None:
        with contextlib.suppress(RedisError, OSError):  # the asker times out on its own
            await self._bus.send(replica, "control_ack", ack)
