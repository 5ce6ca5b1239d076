"""Adapters behind the ``ModelProvider`` port, one module per vendor, and their registry.

    ProviderRegistry                key -> provider; ``build_registry(settings, http)`` fills it
    ├── MockModelProvider           ``mock``: deterministic, network-free
    ├── OpenAICompatibleProvider    ``openai``, ``vllm``, ``host-proxy``: chat-completions SSE
    ├── GoogleProvider              ``google``: Gemini ``streamGenerateContent`` SSE
    └── OllamaProvider              ``ollama``: native ``/api/chat`` NDJSON

All of them stream over one shared ``aiohttp`` session (``make_session``; see ``_http`` for why).

Every provider raises only ``arena_api.core.errors.ProviderError`` subclasses, with messages that
name no model, provider or vendor.
"""

from __future__ import annotations

from arena_api.providers._http import make_session
from arena_api.providers.google import GoogleProvider
from arena_api.providers.mock import MockModelProvider
from arena_api.providers.ollama import OllamaProvider
from arena_api.providers.openai_compat import OpenAICompatibleProvider
from arena_api.providers.registry import ProviderRegistry, build_registry

__all__ = [
    "GoogleProvider",
    "MockModelProvider",
    "OllamaProvider",
    "OpenAICompatibleProvider",
    "ProviderRegistry",
    "build_registry",
    "make_session",
]
