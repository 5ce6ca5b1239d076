"""Ollama through its native chat API (``POST /api/chat``), which streams NDJSON.

Each line is one JSON object: ``{"model", "created_at", "message": {"role", "content"},
"done": false}`` while the answer grows, then ``{"done": true, "done_reason", "eval_count",
"prompt_eval_count", ...}`` (the answer's and the prompt's tokens).
A line ``{"error": "..."}`` reports a failure after the 200 status was sent.
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

__all__ = ["OllamaProvider"]

# Ollama streams ``application/x-ndjson``; a proxy in front may relabel it plain JSON.
_MEDIA_TYPES = ("application/x-ndjson", "application/json")


def _text(line: Mapping[str, Any]) -> str:
    message = line.get("message")
    if message is None:
        return ""
    content = message.get("content", "") if isinstance(message, dict) else None
    if not isinstance(content, str):
        raise ProviderStreamError(UNPARSABLE)
    return content


def _message(message: ChatMessage) -> dict[str, Any]:
    """One message of the request; a user message's images go in ``images`` (base64)."""
    body: dict[str, Any] = {"role": message.role, "content": message.content}
    if message.images:
        body["images"] = [i.base64() for i in message.images]
    return body


def _final(line: Mapping[str, Any]) -> ProviderChunk:
    tokens, model = line.get("eval_count"), line.get("model")
    prompt = line.get("prompt_eval_count")
    return ProviderChunk(
        output_tokens=tokens if isinstance(tokens, int) else None,
        input_tokens=prompt if isinstance(prompt, int) else None,
        model_version=model if isinstance(model, str) and model else None,
    )


class OllamaProvider:
    """Streams chat answers from an Ollama server.

    Args:
        base_url: The server root, e.g. ``http://localhost:11434``.
        http: The process-wide session; its timeouts apply.
    """

    name = "ollama"

    def __init__(self, base_url: str, http: aiohttp.ClientSession) -> None:
        self._url = f"{base_url.rstrip('/')}/api/chat"
        self._http = http

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """Yield the text of each line, then one chunk with ``eval_count`` and the model name.

        Raises:
            ProviderRateLimited: the server answered 429.
            ProviderHTTPError: the server answered another non-2xx status.
            ProviderTimeout: the server did not answer within the client's timeout.
            ProviderStreamError: the server could not be reached (``ProviderUnreachable``), or
                the stream broke off (``ProviderReset``), sent a line too long
                (``ProviderTooLarge``) or an error line (``ProviderReportedError``), was not
                NDJSON, could not be parsed or ended without ``"done": true``.
        """
        body = {
            "model": model.provider_model_id,
            "messages": [_message(m) for m in messages],
            "stream": True,
        }
        final: ProviderChunk | None = None
        async for batch in post_lines(self._http, self._url, body, media_types=_MEDIA_TYPES):
            for raw in batch:
                if not raw.strip() or final is not None:
                    continue  # read to the end, so the connection can be reused
                line = parse_object(raw)
                if "error" in line:
                    raise ProviderReportedError(REPORTED_ERROR)
                text = _text(line)
                if text:
                    yield ProviderChunk(text=text)
                if line.get("done") is True:
                    final = _final(line)
        if final is None:
            raise ProviderStreamError(UNFINISHED)
        yield final
