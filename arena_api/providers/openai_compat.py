"""Any endpoint that speaks OpenAI's chat-completions streaming API: OpenAI, vLLM, a host proxy.

The ``openai`` SDK does the HTTP and the SSE parsing; this adapter turns its chunks into
``ProviderChunk``s and its exceptions into the ``ProviderError`` tree:

    openai.RateLimitError                    -> ProviderRateLimited
    openai.APIStatusError                    -> ProviderHTTPError(status)
    openai.APITimeoutError                   -> ProviderTimeout
    openai.APIConnectionError                -> ProviderStreamError
    an error event, an unparsable chunk,
    a stream that ends without a finish      -> ProviderStreamError
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, cast

import httpx
import openai
from openai.types.chat import (
    ChatCompletionAssistantMessageParam,
    ChatCompletionChunk,
    ChatCompletionMessageParam,
    ChatCompletionSystemMessageParam,
    ChatCompletionUserMessageParam,
)

from arena_api.core.errors import ProviderStreamError, ProviderTimeout
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk
from arena_api.providers._errors import (
    BROKE_OFF,
    REPORTED_ERROR,
    TIMED_OUT,
    UNFINISHED,
    UNPARSABLE,
    UNREACHABLE,
    status_error,
)

__all__ = ["OPENAI_BASE_URL", "OpenAICompatibleProvider", "make_openai_client"]

OPENAI_BASE_URL = "https://api.openai.com/v1"

# Sent when the endpoint needs no key (a local vLLM): the SDK refuses to run without one, and an
# explicit value stops it from falling back to OPENAI_API_KEY and sending that key to another host.
_NO_KEY = "no-key"


def make_openai_client(
    base_url: str | None, api_key: str | None, http_client: httpx.AsyncClient
) -> openai.AsyncOpenAI:
    """An SDK client on the shared connection pool that never retries on its own.

    Retries are off because a slot is timed: a silent retry would spend the voter's wait on a
    request they cannot see.

    Args:
        base_url: The API root including ``/v1``; ``None`` means OpenAI's.
        api_key: Bearer token; ``None`` sends a placeholder instead of any ambient key.
        http_client: The process-wide client (its pool and timeouts are used).
    """
    return openai.AsyncOpenAI(
        base_url=base_url or OPENAI_BASE_URL,
        api_key=api_key or _NO_KEY,
        max_retries=0,
        # The SDK is typed for `httpx2` clients but accepts `httpx` ones at run time.
        http_client=cast(Any, http_client),
    )


def _to_openai(message: ChatMessage) -> ChatCompletionMessageParam:
    if message.role == "system":
        return ChatCompletionSystemMessageParam(role="system", content=message.content)
    if message.role == "assistant":
        return ChatCompletionAssistantMessageParam(role="assistant", content=message.content)
    return ChatCompletionUserMessageParam(role="user", content=message.content)


@dataclass(frozen=True)
class _ChunkFacts:
    text: str
    is_finish: bool
    output_tokens: int | None
    model: str | None


def _read_chunk(chunk: ChatCompletionChunk) -> _ChunkFacts:
    """What one chunk says; the SDK builds chunks without validation, so check the shape here.

    Raises:
        ProviderStreamError: the chunk lacks the fields of a ``chat.completion.chunk``.
    """
    try:
        choice = next((c for c in chunk.choices if c.index == 0), None)
        text = (choice.delta.content or "") if choice is not None else ""
        is_finish = choice is not None and choice.finish_reason is not None
        tokens = chunk.usage.completion_tokens if chunk.usage is not None else None
        model = chunk.model or None
    except (AttributeError, TypeError) as exc:
        raise ProviderStreamError(UNPARSABLE) from exc
    if not isinstance(text, str) or (tokens is not None and not isinstance(tokens, int)):
        raise ProviderStreamError(UNPARSABLE)
    return _ChunkFacts(text, is_finish, tokens, model if isinstance(model, str) else None)


class OpenAICompatibleProvider:
    """Streams chat completions from an OpenAI-compatible endpoint through the ``openai`` SDK.

    Args:
        name: The registry key (``openai``, ``vllm``, ``host-proxy``).
        client: An SDK client, normally from ``make_openai_client``.
    """

    def __init__(self, name: str, client: openai.AsyncOpenAI) -> None:
        self.name = name
        self._client = client

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """Yield the text deltas, then one chunk with the token count and model version.

        Raises:
            ProviderRateLimited: the endpoint answered 429.
            ProviderHTTPError: the endpoint answered another non-2xx status.
            ProviderTimeout: the endpoint did not answer within the client's timeout.
            ProviderStreamError: the endpoint could not be reached, or the stream broke off,
                carried an error, could not be parsed or ended without a finish reason.
        """
        is_connected = is_finished = False
        output_tokens: int | None = None
        version: str | None = None
        try:
            chunks = await self._client.chat.completions.create(
                model=model.provider_model_id,
                messages=[_to_openai(m) for m in messages],
                stream=True,
                stream_options={"include_usage": True},
            )
            is_connected = True
            async with chunks:
                async for chunk in chunks:
                    facts = _read_chunk(chunk)
                    is_finished = is_finished or facts.is_finish
                    if facts.output_tokens is not None:
                        output_tokens = facts.output_tokens
                    version = facts.model or version
                    if facts.text:
                        yield ProviderChunk(text=facts.text)
        except openai.RateLimitError as exc:
            raise status_error(429) from exc
        except openai.APIStatusError as exc:
            raise status_error(exc.status_code) from exc
        except openai.APITimeoutError as exc:
            raise ProviderTimeout(TIMED_OUT) from exc
        except openai.APIConnectionError as exc:
            raise ProviderStreamError(BROKE_OFF if is_connected else UNREACHABLE) from exc
        except openai.APIResponseValidationError as exc:
            raise ProviderStreamError(UNPARSABLE) from exc
        except openai.OpenAIError as exc:
            # An `{"error": ...}` event inside the stream.
            raise ProviderStreamError(REPORTED_ERROR) from exc
        except ValueError as exc:
            # The SDK's `json.loads` of an SSE data line.
            raise ProviderStreamError(UNPARSABLE) from exc
        if not is_finished:
            raise ProviderStreamError(UNFINISHED)
        yield ProviderChunk(output_tokens=output_tokens, model_version=version)
