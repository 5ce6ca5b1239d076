"""A fake Gemini API: ``POST /v1beta/models/{model}:streamGenerateContent?alt=sse``.

Each SSE event is ``data: <GenerateContentResponse>`` followed by a blank line (``\\r\\n``
line ends, as Google sends them): ``candidates[0].content.parts[].text`` with role ``model``,
``usageMetadata`` with the running ``candidatesTokenCount``, ``modelVersion`` and
``responseId``; the last event adds ``"finishReason": "STOP"``. There is no ``[DONE]``. Errors use
Google's body ``{"error": {"code", "message", "status"}}``.
"""

from __future__ import annotations

import json
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import JSONResponse, Response
from starlette.routing import Route

from tests.fakes._faults import (
    DRIP_INTERVAL_S,
    STREAM_FAULTS,
    fault_response,
    filler,
    resolve_behaviour,
)
from tests.fakes._recording import Recorder, behaviour_of
from tests.fakes._scripted import Ending, ScriptedStream

__all__ = ["OK_OUTPUT_TOKENS", "OK_TOKENS", "create_app", "model_version"]

OK_TOKENS = ("Hello", " from", " the", " fake", ".")
OK_OUTPUT_TOKENS = len(OK_TOKENS)
STREAMING_BEHAVIOURS = frozenset(
    {
        "ok",
        "disconnect",
        "stall",
        "truncated",
        "error-line",
        "garbage",
        "blocked",
        "thinking",
        *STREAM_FAULTS,
    }
)
_GRPC_STATUS = {429: "RESOURCE_EXHAUSTED", 502: "UNAVAILABLE", 503: "UNAVAILABLE"}
PROMPT_TOKENS = 9


def model_version(model: str) -> str:
    """The checkpoint the fake reports for ``model``."""
    return f"{model}-001"


def _error(status: int, message: str, grpc_status: str) -> JSONResponse:
    body = {"error": {"code": status, "message": message, "status": grpc_status}}
    return JSONResponse(body, status_code=status)


def _event(payload: dict[str, Any]) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\r\n\r\n"


def _response(model: str, text: str, count: int, finish: bool = False) -> bytes:
    candidate: dict[str, Any] = {"content": {"parts": [{"text": text}], "role": "model"}}
    if finish:
        candidate["finishReason"] = "STOP"
    candidate["index"] = 0
    return _event(
        {
            "candidates": [candidate],
            "usageMetadata": {
                "promptTokenCount": PROMPT_TOKENS,
                "candidatesTokenCount": count,
                "totalTokenCount": PROMPT_TOKENS + count,
            },
            "modelVersion": model_version(model),
            "responseId": "fake-response-id",
        }
    )


def create_app(recorder: Recorder) -> Starlette:
    """The fake API; every request is kept in ``recorder``."""

    async def stream_generate_content(request: Request) -> Response:
        await recorder.record(request)
        model = request.path_params["model"]
        behaviour = resolve_behaviour(behaviour_of(model), model, recorder)
        if "x-goog-api-key" not in request.headers:
            return _error(403, "Method doesn't allow unregistered callers.", "PERMISSION_DENIED")
        if request.query_params.get("alt") != "sse":
            return _error(400, "This fake only streams with alt=sse.", "INVALID_ARGUMENT")
        fault = fault_response(
            behaviour,
            error=lambda status, message: _error(
                status, message, _GRPC_STATUS.get(status, "INTERNAL")
            ),
            media_type="text/event-stream",
            recorder=recorder,
            label=model,
        )
        if fault is not None:
            return fault
        if behaviour == "rate-limited":
            return _error(
                429,
                f"You exceeded your current quota for {model} on the Gemini API "
                "(generativelanguage.googleapis.com). Please retry in 20s.",
                "RESOURCE_EXHAUSTED",
            )
        if behaviour == "server-error":
            return _error(500, f"An internal error has occurred in {model}.", "INTERNAL")
        if behaviour not in STREAMING_BEHAVIOURS:
            return _error(
                404,
                f"models/{model} is not found for API version v1beta, or is not supported "
                "for generateContent.",
                "NOT_FOUND",
            )
        ending: Ending = "end"
        interval = 0.0
        last = len(OK_TOKENS) - 1
        if behaviour == "ok":
            pieces = [
                _response(model, token, index + 1, finish=index == last)
                for index, token in enumerate(OK_TOKENS)
            ]
        elif behaviour == "disconnect":
            pieces = [_response(model, t, i + 1) for i, t in enumerate(OK_TOKENS[:2])]
            ending = "break"
        elif behaviour == "stall":
            pieces = [_response(model, OK_TOKENS[0], 1)]
            ending = "stall"
        elif behaviour == "truncated":
            pieces = [_response(model, t, i + 1) for i, t in enumerate(OK_TOKENS[:2])]
        elif behaviour == "garbage":
            pieces = [_response(model, OK_TOKENS[0], 1), b"data: {not json\r\n\r\n"]
        elif behaviour == "reset-after-token":
            pieces = [_response(model, OK_TOKENS[0], 1)]
            ending = "reset"
        elif behaviour == "malformed":
            pieces = [b"data: {not json\r\n\r\n"]
        elif behaviour == "drip":
            pieces = [
                _response(model, token, index + 1, finish=index == last)
                for index, token in enumerate(OK_TOKENS)
            ]
            interval = DRIP_INTERVAL_S
        elif behaviour == "oversized":
            pieces = [_response(model, OK_TOKENS[0], 1)]
            pieces.append(b'data: {"candidates":[{"content":{"parts":[{"text":"')
            pieces += [*filler(), b'"}],"role":"model"},"index":0}]}\r\n\r\n']
            pieces.append(_response(model, ".", 2, finish=True))
        elif behaviour == "blocked":
            usage = {"promptTokenCount": PROMPT_TOKENS, "totalTokenCount": PROMPT_TOKENS}
            feedback = {"blockReason": "SAFETY", "safetyRatings": []}
            pieces = [_event({"promptFeedback": feedback, "usageMetadata": usage})]
        elif behaviour == "thinking":
            thought = {"text": "The user greets me.", "thought": True}
            first = {"content": {"parts": [thought], "role": "model"}, "index": 0}
            pieces = [_event({"candidates": [first], "modelVersion": model_version(model)})]
            pieces.append(_response(model, "Hi.", 1, finish=True))
        else:  # error-line
            pieces = [_response(model, OK_TOKENS[0], 1)]
            error = {"code": 503, "message": f"{model} is overloaded.", "status": "UNAVAILABLE"}
            pieces.append(_event({"error": error}))
        return ScriptedStream(
            pieces,
            media_type="text/event-stream",
            recorder=recorder,
            ending=ending,
            interval=interval,
            label=model,
        )

    routes = [
        Route(
            "/v1beta/models/{model}:streamGenerateContent",
            stream_generate_content,
            methods=["POST"],
        )
    ]
    return Starlette(routes=routes)
