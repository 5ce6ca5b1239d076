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
    """The requests a fake received, the moment a client dropped a stream before its end, how
    many streams are still being played and how many body bytes were sent."""

    def __init__(self) -> None:
        self.requests: list[ReceivedRequest] = []
        self.disconnected = threading.Event()
        self.disconnected_at: float | None = None
        self.open_streams = 0
        self.bytes_sent = 0
        #: Models (the streams' labels) whose client hung up before the stream's end.
        self.disconnected_models: set[str] = set()
        #: Streams still being played, per model.
        self.open_by_model: dict[str, int] = {}
        self._lock = threading.Lock()

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

    def mark_disconnected(self, label: str | None = None) -> None:
        self.disconnected_at = time.monotonic()
        if label is not None:
            with self._lock:
                self.disconnected_models.add(label)
        self.disconnected.set()

    def stream_started(self, label: str | None = None) -> None:
        with self._lock:
            self.open_streams += 1
            if label is not None:
                self.open_by_model[label] = self.open_by_model.get(label, 0) + 1

    def stream_ended(self, label: str | None = None) -> None:
        with self._lock:
            self.open_streams -= 1
            if label is not None:
                self.open_by_model[label] -= 1

    def sent(self, size: int) -> None:
        with self._lock:
            self.bytes_sent += size

    def requests_for(self, model: str) -> int:
        """How many requests asked for ``model`` (by body ``model`` or by path)."""
        return sum(
            1
            for r in self.requests
            if (isinstance(r.json, dict) and r.json.get("model") == model) or f"/{model}:" in r.path
        )

    @property
    def last(self) -> ReceivedRequest:
        return self.requests[-1]

    def clear(self) -> None:
        self.requests.clear()
        self.disconnected.clear()
        self.disconnected_at = None
        with self._lock:
            self.bytes_sent = 0
            self.disconnected_models.clear()
