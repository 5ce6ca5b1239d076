"""What a fake server received, kept for the test to assert on (the server runs in a thread)."""

from __future__ import annotations

import threading
import time
from dataclasses import dataclass
from typing import Any

from starlette.requests import Request

__all__ = ["ReceivedRequest", "Recorder", "behaviour_of"]


def behaviour_of(model: str) -> str:
    """The behaviour a model name asks for: the part after its last ``--``."""
    return model.rpartition("--")[2]


@dataclass(frozen=True)
class ReceivedRequest:
    """One request as the fake saw it; header names are lower-case."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    json: Any


class Recorder:
    """The requests a fake received and the moment a client dropped a stalled stream."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self.disconnected = threading.Event()
        self.disconnected_at: float | None = None

    async def record(self, request: Request) -> ReceivedRequest:
        """Read ``request``'s JSON body and keep the request."""
        received = ReceivedRequest(
            method=request.method,
            path=request.url.path,
            query=dict(request.query_params),
            headers={k.lower(): v for k, v in request.headers.items()},
            json=await request.json(),
        )
        self.requests.append(received)
        return received

    def mark_disconnected(self) -> None:
        self.disconnected_at = time.monotonic()
        self.disconnected.set()

    @property
    def last(self) -> ReceivedRequest:
        return self.requests[-1]

    def clear(self) -> None:
        self.requests.clear()
        self.disconnected.clear()
        self.disconnected_at = None
