"""The protocol registry: names, aliases, media types, egress factory, optional ingress parser.

============  =============================  ===============================================
protocol      ``?protocol=`` aliases         ``Accept`` media types (ingress envelope)
============  =============================  ===============================================
sse           sse, native, native-sse        text/event-stream (the arena's body only)
ag-ui         ag-ui, agui                    application/vnd.ag-ui+json (``RunAgentInput``)
a2ui          a2ui                           application/vnd.a2ui+json, application/x-ndjson
a2ui-v0.9     a2ui-v0.9, a2ui-v0_9, a2ui-0.9 application/json+a2ui
vercel-ai     vercel-ai, vercel, ai-sdk      application/vnd.vercel.ai.ui-message-stream+json
                                             (``useChat`` body)
openai        openai, openai-sse             application/vnd.openai.chat-chunk+json
                                             (chat-completions body)
============  =============================  ===============================================

Every protocol also accepts the arena's own body.

Selection: ``?protocol=`` (case-insensitive alias), then the first ``Accept`` media type in
q-order that a protocol claims, then native SSE; an unknown value never fails. Adding a protocol
is one module and one line in ``PROTOCOLS``.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any

from arena_api.core.requests import ChatRequest, parse_command
from arena_api.protocols._ingress import is_foreign_envelope
from arena_api.protocols.a2ui import A2uiAdapter, A2uiV09Adapter
from arena_api.protocols.ag_ui import AgUiAdapter, parse_run_agent_input
from arena_api.protocols.base import ClientRequest, EventAdapter, IngressParser, RunContext
from arena_api.protocols.native import NativeSSE
from arena_api.protocols.openai_sse import OpenAiSseAdapter, parse_chat_completions_body
from arena_api.protocols.vercel_ai import VercelAiAdapter, parse_use_chat_body

__all__ = [
    "DEFAULT_PROTOCOL",
    "PROTOCOLS",
    "Protocol",
    "get_protocol",
    "parse_chat_body",
    "select_protocol",
]


def _native(context: RunContext) -> EventAdapter:
    return NativeSSE()


@dataclass(frozen=True)
class Protocol:
    """One wire protocol: how it is asked for, how it frames events, what body it reads."""

    name: str
    aliases: tuple[str, ...]
    media_types: tuple[str, ...]
    adapter: Callable[[RunContext], EventAdapter]
    ingress: IngressParser | None = None

    def new_adapter(self, context: RunContext | None = None) -> EventAdapter:
        """A fresh adapter for one response."""
        return self.adapter(context or RunContext())


PROTOCOLS: tuple[Protocol, ...] = (
    Protocol("sse", ("sse", "native", "native-sse"), ("text/event-stream",), _native),
    Protocol(
        "ag-ui",
        ("ag-ui", "agui"),
        ("application/vnd.ag-ui+json",),
        AgUiAdapter,
        parse_run_agent_input,
    ),
    Protocol("a2ui", ("a2ui",), ("application/vnd.a2ui+json", "application/x-ndjson"), A2uiAdapter),
    Protocol(
        "a2ui-v0.9",
        ("a2ui-v0.9", "a2ui-v0_9", "a2ui-0.9"),
        ("application/json+a2ui",),
        A2uiV09Adapter,
    ),
    Protocol(
        "vercel-ai",
        ("vercel-ai", "vercel", "ai-sdk"),
        ("application/vnd.vercel.ai.ui-message-stream+json",),
        VercelAiAdapter,
        parse_use_chat_body,
    ),
    Protocol(
        "openai",
        ("openai", "openai-sse"),
        ("application/vnd.openai.chat-chunk+json",),
        OpenAiSseAdapter,
        parse_chat_completions_body,
    ),
)
DEFAULT_PROTOCOL = PROTOCOLS[0]

_BY_ALIAS: Mapping[str, Protocol] = {
    alias: protocol for protocol in PROTOCOLS for alias in (protocol.name, *protocol.aliases)
}
_BY_MEDIA_TYPE: Mapping[str, Protocol] = {
    media: protocol for protocol in PROTOCOLS for media in protocol.media_types
}


def get_protocol(name: str) -> Protocol:
    """The protocol with this name or alias (case-insensitive).

    Raises:
        KeyError: no protocol answers to ``name``.
    """
    return _BY_ALIAS[name.strip().lower()]


def _accepted(accept: str) -> list[str]:
    """An ``Accept`` header's media types by preference (q descending, then order); q=0 dropped."""
    ranked: list[tuple[float, int, str]] = []
    for position, item in enumerate(accept.split(",")):
        media, *params = (piece.strip() for piece in item.split(";"))
        if not media:
            continue
        quality = 1.0
        for param in params:
            key, _, value = param.partition("=")
            if key.strip().lower() == "q":
                try:
                    quality = float(value)
                except ValueError:
                    quality = 0.0
        if quality > 0:
            ranked.append((-quality, position, media.lower()))
    return [media for _, _, media in sorted(ranked)]


def select_protocol(query_value: str | None, accept_header: str | None) -> Protocol:
    """``?protocol=`` alias, else the first supported ``Accept`` type in q-order, else native."""
    if query_value:
        try:
            return get_protocol(query_value)
        except KeyError:
            return DEFAULT_PROTOCOL  # an unknown value never breaks the default path
    for media in _accepted(accept_header or ""):
        if media in _BY_MEDIA_TYPE:
            return _BY_MEDIA_TYPE[media]
    return DEFAULT_PROTOCOL


def parse_chat_body(protocol: Protocol, body: Any) -> ClientRequest:
    """Read a chat body for ``protocol``: its own envelope, or the arena's body on any protocol.

    Detection is structural: a ``messages`` array and no ``prompt`` is the protocol's envelope
    (when it has one); anything else is the arena's own ``{prompt, ...}``.

    Raises:
        InvalidRequest: the body does not validate.
    """
    if protocol.ingress is not None and is_foreign_envelope(body):
        return protocol.ingress(body)
    return ClientRequest(parse_command(ChatRequest, body))
