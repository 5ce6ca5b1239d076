"""Wire protocols: egress adapters that frame the public event stream, ingress parsers of
foreign request envelopes, and the registry that selects them per request."""

from __future__ import annotations

from arena_api.protocols.base import ClientRequest, EventAdapter, IngressParser, RunContext
from arena_api.protocols.native import NativeSSE
from arena_api.protocols.registry import (
    DEFAULT_PROTOCOL,
    PROTOCOLS,
    Protocol,
    get_protocol,
    parse_chat_body,
    select_protocol,
)
from arena_api.protocols.slot_error import SLOT_ERROR_MARKER, slot_error_text

__all__ = [
    "DEFAULT_PROTOCOL",
    "PROTOCOLS",
    "SLOT_ERROR_MARKER",
    "ClientRequest",
    "EventAdapter",
    "IngressParser",
    "NativeSSE",
    "Protocol",
    "RunContext",
    "get_protocol",
    "parse_chat_body",
    "select_protocol",
    "slot_error_text",
]
