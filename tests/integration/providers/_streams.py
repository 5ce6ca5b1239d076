"""Models and stream-draining helpers shared by the provider tests."""

from __future__ import annotations

import uuid
from collections.abc import AsyncIterator

from arena_api.core.errors import ProviderError
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk

SECRET_PREFIX = "secretlm-7b"
SECRET_DISPLAY_NAME = "Secret LM 7B"
VENDOR_WORDS = ("openai", "gpt", "vllm", "host-proxy", "ollama", "google", "gemini", "mock")

CONVERSATION = (
    ChatMessage(role="system", content="Answer briefly."),
    ChatMessage(role="user", content="What is an arena?"),
    ChatMessage(role="assistant", content="A place where models meet."),
    ChatMessage(role="user", content="And a blind one?"),
)


def model(behaviour: str, provider: str = "openai") -> ModelEntry:
    """A roster entry whose provider model id asks the fakes for ``behaviour``."""
    return ModelEntry(
        id=uuid.uuid5(uuid.NAMESPACE_URL, f"test:{behaviour}"),
        display_name=SECRET_DISPLAY_NAME,
        provider=provider,
        provider_model_id=f"{SECRET_PREFIX}--{behaviour}",
    )


async def drain(stream: AsyncIterator[ProviderChunk]) -> list[ProviderChunk]:
    """Every chunk of ``stream``."""
    return [chunk async for chunk in stream]


async def drain_until_error(
    stream: AsyncIterator[ProviderChunk],
) -> tuple[list[ProviderChunk], ProviderError | None]:
    """The chunks ``stream`` yielded before it raised, and the ``ProviderError`` it raised."""
    chunks: list[ProviderChunk] = []
    try:
        async for chunk in stream:
            chunks.append(chunk)
    except ProviderError as exc:
        return chunks, exc
    return chunks, None


def text_of(chunks: list[ProviderChunk]) -> str:
    return "".join(chunk.text for chunk in chunks)


def leaked_names(message: str, entry: ModelEntry) -> list[str]:
    """The model or vendor names that ``message`` gives away (none, for a blind-safe message)."""
    lowered = message.lower()
    secrets = (entry.provider_model_id, entry.display_name, SECRET_PREFIX, *VENDOR_WORDS)
    return [name for name in secrets if name.lower() in lowered]
