"""Any endpoint that speaks OpenAI's chat-completions streaming API: OpenAI, vLLM, a host proxy.

The request is ``POST {base}/chat/completions`` with ``stream: true`` and
``stream_options.include_usage``; the answer is Server-Sent Events whose ``data`` fields are
``chat.completion.chunk`` objects, then ``data: [DONE]``. From each chunk only what the arena
needs is read: ``choices[0].delta.content``, a ``finish_reason``, ``usage.prompt_tokens`` and
``usage.completion_tokens`` (what the answer cost), and ``model`` (see ``_http`` for why this is
not the ``openai`` SDK). Failures:

    429                                      -> ProviderRateLimited
    another non-2xx status                   -> ProviderHTTPError(status)
    the read timeout                         -> ProviderTimeout
    no connection                            -> ProviderUnreachable
    a reset or dropped connection            -> ProviderReset
    an event or line over 1 MiB              -> ProviderTooLarge
    an error event                           -> ProviderReportedError
    not ``text/event-stream``, an unparsable
    chunk, a stream without a finish         -> ProviderStreamError

(Retries before the first token wrap the provider: ``_retry``.)
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any

import aiohttp

from arena_api.core.errors import ProviderReportedError, ProviderStreamError
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk
from arena_api.providers._errors import REPORTED_ERROR, UNFINISHED, UNPARSABLE, parse_object
from arena_api.providers._http import post_lines
from arena_api.providers._sse import SSEDecoder

__all__ = ["OPENAI_BASE_URL", "OpenAICompatibleProvider"]

OPENAI_BASE_URL = "https://api.openai.com/v1"
_DONE = b"[DONE]"
_MEDIA_TYPES = ("text/event-stream",)


def _message(message: ChatMessage) -> dict[str, Any]:
    """One message of the request: a user message with images has content parts, its text then
    each image as a base64 ``data:`` URL (what vision endpoints take without fetching)."""
    if not message.images:
        return {"role": message.role, "content": message.content}
    parts: list[dict[str, Any]] = [{"type": "text", "text": message.content}]
    parts += [{"type": "image_url", "image_url": {"url": i.data_url()}} for i in message.images]
    return {"role": message.role, "content": parts}


def _read_chunk(
    chunk: Mapping[str, Any],
) -> tuple[str, bool, tuple[int | None, int | None], str | None]:
    """(text, is the finish, (prompt tokens, completion tokens), model) of one chunk.

    Raises:
        ProviderStreamError: an error event, or a chunk that is not a ``chat.completion.chunk``.
    """
    if chunk.get("error"):
        raise ProviderReportedError(REPORTED_ERROR)
    choices = chunk.get("choices")
    if not isinstance(choices, list):
        raise ProviderStreamError(UNPARSABLE)
    text, is_finish = "", False
    for choice in choices:
        if isinstance(choice, dict) and choice.get("index", 0) == 0:
            delta = choice.get("delta") or {}
            content = delta.get("content") if isinstance(delta, dict) else None
            if content is not None and not isinstance(content, str):
                raise ProviderStreamError(UNPARSABLE)
            text, is_finish = content or "", choice.get("finish_reason") is not None
            break
    usage = chunk.get("usage")
    usage = usage if isinstance(usage, dict) else {}
    prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
    for count in (prompt, completion):
        if count is not None and not isinstance(count, int):
            raise ProviderStreamError(UNPARSABLE)
    model = chunk.get("model")
    return (
        text,
        is_finish,
        (prompt, completion),
        model if isinstance(model, str) and model else None,
    )


class OpenAICompatibleProvider:
    """Streams chat completions from an OpenAI-compatible endpoint.

    Args:
        name: The registry key (``openai``, ``vllm``, ``host-proxy``).
        base_url: The API root including ``/v1``; ``None`` means OpenAI's.
        api_key: Bearer token; none is sent without one.
        http: The process-wide session (its timeouts apply).
    """

    def __init__(
        self, name: str, base_url: str | None, api_key: str | None, http: aiohttp.ClientSession
    ) -> None:
        self.name = name
        self._url = f"{(base_url or OPENAI_BASE_URL).rstrip('/')}/chat/completions"
        self._headers = {"authorization": f"Bearer {api_key}"} if api_key else {}
        self._http = http

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """Yield the text deltas, then one chunk with the token count and model version.

        Raises:
            ProviderRateLimited: the endpoint answered 429.
            ProviderHTTPError: the endpoint answered another non-2xx status.
            ProviderTimeout: the endpoint fell silent past the session's read timeout.
            ProviderStreamError: the endpoint could not be reached (``ProviderUnreachable``),
                the stream broke off (``ProviderReset``), sent a piece too large
                (``ProviderTooLarge``), carried an error (``ProviderReportedError``), was not
                SSE, could not be parsed or ended without a finish reason.
        """
        body = {
            "model": model.provider_model_id,
            "messages": [_message(m) for m in messages],
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        decoder = SSEDecoder()
        is_finished = False
        output_tokens: int | None = None
        input_tokens: int | None = None
        version: str | None = None
        lines = post_lines(
            self._http, self._url, body, headers=self._headers, media_types=_MEDIA_TYPES
        )
        feed = decoder.feed
        async for batch in lines:
            for line in batch:
                data = feed(line)
                if data is None or data == _DONE:
                    continue
                text, is_finish, (prompt, completion), chunk_model = _read_chunk(parse_object(data))
                is_finished = is_finished or is_finish
                if completion is not None:
                    output_tokens = completion
                if prompt is not None:
                    input_tokens = prompt
                version = chunk_model or version
                if text:
                    yield ProviderChunk(text=text)
        if not is_finished:
            raise ProviderStreamError(UNFINISHED)
        yield ProviderChunk(
            output_tokens=output_tokens, input_tokens=input_tokens, model_version=version
        )
