"""The two ports of a wire protocol: egress (framing events) and ingress (reading a foreign body).

``EventAdapter`` frames the public event stream for one response. ``IngressParser`` turns a
protocol's own request envelope (an AG-UI ``RunAgentInput``, an OpenAI chat-completions body, an
AI SDK ``useChat`` body) into the one ``ChatRequest`` the service runs on, plus the
``RunContext`` the egress side echoes back (AG-UI's ``threadId``/``runId``).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from typing import Any, Protocol

from arena_api.core.events import PublicEvent
from arena_api.core.requests import ChatRequest

__all__ = ["ClientRequest", "EventAdapter", "IngressParser", "RunContext"]


@dataclass(frozen=True)
class RunContext:
    """What the client's envelope asks the response to echo (AG-UI run and thread ids)."""

    thread_id: str | None = None
    run_id: str | None = None


@dataclass(frozen=True)
class ClientRequest:
    """A chat request read from any envelope, and what its response must echo."""

    request: ChatRequest
    context: RunContext = field(default_factory=RunContext)


class EventAdapter(Protocol):
    """Frames public events for one wire protocol.

    ``serialize`` may keep per-stream state (open messages, counters), so an adapter instance
    serves one response only.
    """

    name: str
    media_type: str
    #: A pre-stream failure is delivered as a terminal event at 200 (AG-UI), not as a status.
    in_band_errors: bool

    @property
    def headers(self) -> Mapping[str, str]: ...

    def serialize(self, event: PublicEvent) -> bytes: ...

    def finalize(self) -> bytes: ...


class IngressParser(Protocol):
    """Reads a protocol's own request envelope.

    Raises:
        InvalidRequest: the envelope has no user message to answer, carries content the arena
            cannot take (images, audio, files), or an arena field is malformed.
    """

    def __call__(self, body: Mapping[str, Any]) -> ClientRequest: ...
