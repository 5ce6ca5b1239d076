"""Which providers the settings register, and how the registry resolves them."""

from __future__ import annotations

import aiohttp
import pytest

import arena_api.providers
from arena_api.core.errors import ProviderUnavailable
from arena_api.providers import MockModelProvider, ProviderRegistry, build_registry
from arena_api.settings import load_settings
from tests.integration.providers._streams import CONVERSATION, drain, model
from tests.integration.providers.conftest import FakeVendor


@pytest.mark.parametrize(
    ("env", "expected"),
    [
        pytest.param({}, {"ollama"}, id="defaults"),
        pytest.param({"ARENA_MOCK_PROVIDER": "1"}, {"mock", "ollama"}, id="mock"),
        pytest.param({"OPENAI_API_KEY": "sk-test"}, {"openai", "ollama"}, id="openai-key"),
        pytest.param(
            {"OPENAI_BASE_URL": "http://llm.local/v1"}, {"openai", "ollama"}, id="openai-base-url"
        ),
        pytest.param({"VLLM_BASE_URL": "http://vllm:8000/v1"}, {"vllm", "ollama"}, id="vllm"),
        pytest.param(
            {"HOST_PROXY_URL": "http://host:8080/v1"}, {"host-proxy", "ollama"}, id="host-proxy"
        ),
        pytest.param({"GOOGLE_API_KEY": "g-test"}, {"google", "ollama"}, id="google"),
        pytest.param({"OLLAMA_BASE_URL": ""}, set(), id="ollama-switched-off"),
        pytest.param(
            {
                "ARENA_MOCK_PROVIDER": "1",
                "OPENAI_API_KEY": "sk-test",
                "VLLM_BASE_URL": "http://vllm:8000/v1",
                "HOST_PROXY_URL": "http://host:8080/v1",
                "GOOGLE_API_KEY": "g-test",
            },
            {"mock", "openai", "vllm", "host-proxy", "google", "ollama"},
            id="everything",
        ),
    ],
)
async def test_build_registry_registers_the_configured_providers(
    env: dict[str, str], expected: set[str], http: aiohttp.ClientSession
) -> None:
    settings = load_settings(env)

    registry = build_registry(settings, http)

    assert registry.names() == frozenset(expected)
    assert {registry.resolve(key).name for key in expected} == expected


async def test_mock_provider_takes_its_pace_and_length_from_the_settings(
    http: aiohttp.ClientSession,
) -> None:
    settings = load_settings(
        {
            "ARENA_MOCK_PROVIDER": "1",
            "ARENA_MOCK_TOKENS_PER_SECOND": "0",
            "ARENA_MOCK_TOKENS": "7",
        }
    )

    provider = build_registry(settings, http).resolve("mock")

    assert isinstance(provider, MockModelProvider)
    assert len(await drain(provider.stream(model("a", "mock"), CONVERSATION))) == 7


def test_resolving_an_unconfigured_provider_names_only_its_key() -> None:
    registry = ProviderRegistry({"mock": MockModelProvider(0, 3)})

    with pytest.raises(ProviderUnavailable) as caught:
        registry.resolve("google")

    assert str(caught.value) == "provider 'google' is not configured"


async def test_host_proxy_is_called_with_its_token_as_bearer(
    openai_fake: FakeVendor, http: aiohttp.ClientSession
) -> None:
    settings = load_settings(
        {"HOST_PROXY_URL": f"{openai_fake.url}/v1", "HOST_PROXY_TOKEN": "proxy-token"}
    )
    provider = build_registry(settings, http).resolve("host-proxy")

    await drain(provider.stream(model("ok"), CONVERSATION))

    assert openai_fake.recorder.last.headers["authorization"] == "Bearer proxy-token"


async def test_keyless_vllm_never_sends_an_ambient_openai_key(
    openai_fake: FakeVendor, http: aiohttp.ClientSession, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An ambient $OPENAI_API_KEY must not travel to another host."""
    monkeypatch.setenv("OPENAI_API_KEY", "sk-ambient-secret")
    settings = load_settings({"VLLM_BASE_URL": f"{openai_fake.url}/v1"})
    provider = build_registry(settings, http).resolve("vllm")

    await drain(provider.stream(model("ok"), CONVERSATION))

    assert "sk-ambient-secret" not in openai_fake.recorder.last.headers.get("authorization", "")


def test_package_exports_the_adapters_and_the_registry() -> None:
    assert set(arena_api.providers.__all__) == {
        "GoogleProvider",
        "MockModelProvider",
        "OllamaProvider",
        "OpenAICompatibleProvider",
        "ProviderRegistry",
        "build_registry",
        "make_session",
    }
