"""The configured providers, by key, and the one function that builds them from the settings."""

from __future__ import annotations

from collections.abc import Mapping

import aiohttp

from arena_api.core.errors import ProviderUnavailable
from arena_api.core.ports import ModelProvider
from arena_api.providers._retry import RetryingProvider, RetryPolicy
from arena_api.providers.google import GOOGLE_BASE_URL, GoogleProvider
from arena_api.providers.mock import MockModelProvider
from arena_api.providers.ollama import OllamaProvider
from arena_api.providers.openai_compat import OpenAICompatibleProvider
from arena_api.settings import Secret, Settings

__all__ = ["ProviderRegistry", "build_registry"]


class ProviderRegistry:
    """A ``ProviderResolver`` over a fixed mapping of provider key to provider.

    Args:
        providers: Provider key (the roster's ``provider`` field) to provider; copied.
    """

    def __init__(self, providers: Mapping[str, ModelProvider]) -> None:
        self._providers = dict(providers)

    def resolve(self, provider: str) -> ModelProvider:
        """The provider registered under ``provider``.

        Raises:
            ProviderUnavailable: no such provider is configured.
        """
        try:
            return self._providers[provider]
        except KeyError:
            raise ProviderUnavailable(f"provider {provider!r} is not configured") from None

    def names(self) -> frozenset[str]:
        """Keys of the configured providers."""
        return frozenset(self._providers)


def _reveal(secret: Secret | None) -> str | None:
    return None if secret is None else secret.reveal()


def build_registry(settings: Settings, http: aiohttp.ClientSession) -> ProviderRegistry:
    """The providers the settings configure, all sharing ``http``.

    * ``mock`` when ``ARENA_MOCK_PROVIDER`` or ``ARENA_DEMO`` is on;
    * ``openai`` when ``OPENAI_API_KEY`` or ``OPENAI_BASE_URL`` is set;
    * ``vllm`` when ``VLLM_BASE_URL`` is set (bearer ``VLLM_API_KEY``, if any);
    * ``host-proxy`` when ``HOST_PROXY_URL`` is set (bearer ``HOST_PROXY_TOKEN``, if any);
    * ``google`` when ``GOOGLE_API_KEY`` is set;
    * ``ollama`` whenever ``OLLAMA_BASE_URL`` is set, which it is by default.

    No provider opens a connection here; an endpoint that is down fails its first stream. Every
    network provider retries a failure before its first token (``ARENA_PROVIDER_RETRIES`` times,
    within ``ARENA_SLOT_TIMEOUT_S``; see ``_retry``).
    """
    policy = RetryPolicy(
        retries=settings.provider_retries, first_token_timeout_s=settings.slot_timeout_s
    )
    network: dict[str, ModelProvider] = {}
    _add_network_providers(network, settings, http)
    providers: dict[str, ModelProvider] = {}
    if settings.uses_mock_provider:
        providers["mock"] = MockModelProvider(settings.mock_tokens_per_second, settings.mock_tokens)
    for key, provider in network.items():
        providers[key] = RetryingProvider(provider, policy)
    return ProviderRegistry(providers)


def _add_network_providers(
    providers: dict[str, ModelProvider], settings: Settings, http: aiohttp.ClientSession
) -> None:
    if settings.openai_api_key is not None or settings.openai_base_url is not None:
        providers["openai"] = OpenAICompatibleProvider(
            "openai", settings.openai_base_url, _reveal(settings.openai_api_key), http
        )
    if settings.vllm_base_url is not None:
        providers["vllm"] = OpenAICompatibleProvider(
            "vllm", settings.vllm_base_url, _reveal(settings.vllm_api_key), http
        )
    if settings.host_proxy_url is not None:
        providers["host-proxy"] = OpenAICompatibleProvider(
            "host-proxy", settings.host_proxy_url, _reveal(settings.host_proxy_token), http
        )
    if settings.google_api_key is not None:
        providers["google"] = GoogleProvider(
            settings.google_base_url or GOOGLE_BASE_URL, settings.google_api_key.reveal(), http
        )
    if settings.ollama_base_url is not None:
        providers["ollama"] = OllamaProvider(settings.ollama_base_url, http)
