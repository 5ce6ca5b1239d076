"""Wire protocols: egress adapters that frame the public event stream (and, later, ingress)."""

from __future__ import annotations

from arena_api.protocols.base import EventAdapter
from arena_api.protocols.native import NativeSSE

__all__ = ["EventAdapter", "NativeSSE"]
