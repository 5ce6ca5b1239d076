"""Google Gemini through ``models/{model}:streamGenerateContent?alt=sse``.

The request carries the conversation as ``contents`` (roles ``user`` and ``model``) and the system
messages as ``systemInstruction``; the key goes in the ``x-goog-api-key`` header. The answer is a
Server-Sent Events stream whose ``data`` fields each hold one ``GenerateContentResponse``:
``candidates[0].content.parts[].text`` carries text, ``candidates[0].finishReason`` marks the end,
``usageMetadata.candidatesTokenCount`` counts the answer, ``promptTokenCount`` the prompt, and
``modelVersion`` names the checkpoint.
There is no ``[DONE]`` sentinel: the stream just ends after the event with a finish reason.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any

import aiohttp

from arena_api.core.errors import (
    ProviderError,
    ProviderRefused,
    ProviderReportedError,
    ProviderStreamError,
)
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.ports import ProviderChunk
from arena_api.providers._errors import REPORTED_ERROR, UNFINISHED, UNPARSABLE, parse_object
from arena_api.providers._http import post_lines
from arena_api.providers._sse import SSEDecoder

__all__ = ["GOOGLE_BASE_URL", "GoogleProvider"]

GOOGLE_BASE_URL = "https://generativelanguage.googleapis.com"

_BLOCKED = "the model endpoint refused the prompt"


def _parts(message: ChatMessage) -> list[dict[str, Any]]:
    """A message's parts: its text, then each image inline (``inline_data``, base64)."""
    return [
        {"text": message.content},
        *({"inline_data": {"mime_type": i.media_type, "data": i.base64()}} for i in message.images),
    ]


def _request_body(messages: Sequence[ChatMessage]) -> dict[str, Any]:
    """The JSON body of a ``streamGenerateContent`` request for ``messages``."""
    contents = [
        {"role": "model" if m.role == "assistant" else "user", "parts": _parts(m)}
        for m in messages
        if m.role != "system"
    ]
    body: dict[str, Any] = {"contents": contents}
    system = [{"text": m.content} for m in messages if m.role == "system"]
    if system:
        body["systemInstruction"] = {"parts": system}
    return body


@dataclass(frozen=True)
class _EventFacts:
    text: str
    is_finish: bool
    output_tokens: int | None
    input_tokens: int | None
    model_version: str | None


def _mapping(value: object) -> Mapping[str, Any]:
    if not isinstance(value, dict):
        raise ProviderStreamError(UNPARSABLE)
    return value


def _part_text(part: Mapping[str, Any]) -> str:
    if part.get("thought"):
        return ""  # a thought summary is not part of the answer
    text = part.get("text", "")
    if not isinstance(text, str):
        raise ProviderStreamError(UNPARSABLE)
    return text


def _read_event(event: Mapping[str, Any]) -> _EventFacts:
    """What one ``GenerateContentResponse`` says.

    Raises:
        ProviderStreamError: the event is an error, a blocked prompt, or not the expected shape.
    """
    if "error" in event:
        raise ProviderReportedError(REPORTED_ERROR)
    candidates = event.get("candidates") or []
    if not isinstance(candidates, list):
        raise ProviderStreamError(UNPARSABLE)
    if not candidates:
        feedback = event.get("promptFeedback")
        if isinstance(feedback, dict) and feedback.get("blockReason"):
            raise ProviderRefused(_BLOCKED)
    text, is_finish = "", False
    if candidates:
        candidate = _mapping(candidates[0])
        parts = _mapping(candidate.get("content") or {}).get("parts") or []
        if not isinstance(parts, list):
            raise ProviderStreamError(UNPARSABLE)
        text = "".join(_part_text(_mapping(part)) for part in parts)
        is_finish = candidate.get("finishReason") is not None
    usage = _mapping(event.get("usageMetadata") or {})
    tokens, version = usage.get("candidatesTokenCount"), event.get("modelVersion")
    prompt = usage.get("promptTokenCount")
    return _EventFacts(
        input_tokens=prompt if isinstance(prompt, int) else None,
        text=text,
        is_finish=is_finish,
        output_tokens=tokens if isinstance(tokens, int) else None,
        model_version=version if isinstance(version, str) and version else None,
    )


class GoogleProvider:
    """Streams answers from the Gemini API.

    Args:
        base_url: The API root without a version, e.g. ``GOOGLE_BASE_URL``.
        api_key: The Gemini API key.
        http: The process-wide session; its timeouts apply.
    """

    name = "google"

    def __init__(self, base_url: str, api_key: str, http: aiohttp.ClientSession) -> None:
        self._base_url = base_url.rstrip("/")
        self._api_key = api_key
        self._http = http

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        """Yield the text of each event, then one chunk with the token count and model version.

        Raises:
            ProviderRateLimited: the API answered 429.
            ProviderHTTPError: the API answered another non-2xx status.
            ProviderTimeout: the API did not answer within the client's timeout.
            ProviderStreamError: the API could not be reached (``ProviderUnreachable``), or the
                stream broke off (``ProviderReset``), sent a piece too large
                (``ProviderTooLarge``), carried an error (``ProviderReportedError``), refused the
                prompt (``ProviderRefused``), was not SSE, could not be parsed or ended without a
                finish reason.
        """
        model_id = model.provider_model_id.removeprefix("models/")
        url = f"{self._base_url}/v1beta/models/{model_id}:streamGenerateContent"
        decoder = SSEDecoder()
        is_finished = False
        output_tokens: int | None = None
        input_tokens: int | None = None
        version: str | None = None
        lines = post_lines(
            self._http,
            url,
            _request_body(messages),
            headers={"x-goog-api-key": self._api_key},
            params={"alt": "sse"},
            media_types=("text/event-stream",),
        )
        try:
            async for batch in lines:
                for line in batch:
                    data = decoder.feed(line)
                    if data is None:
                        continue
                    facts = _read_event(parse_object(data))
                    is_finished = is_finished or facts.is_finish
                    if facts.output_tokens is not None:
                        output_tokens = facts.output_tokens
                    if facts.input_tokens is not None:
                        input_tokens = facts.input_tokens
                    version = facts.model_version or version
                    if facts.text:
                        yield ProviderChunk(text=facts.text)
        except ProviderError:
            # Once the finish reason arrived the answer is whole; a failure while reading the
            # (empty) rest of the body does not take it away.
            if not is_finished:
                raise
        if not is_finished:
            raise ProviderStreamError(UNFINISHED)
        yield ProviderChunk(
            output_tokens=output_tokens, input_tokens=input_tokens, model_version=version
        )
