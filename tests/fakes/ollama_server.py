"""A fake Ollama server: native ``POST /api/chat`` answering NDJSON, one object per line.

Lines look like Ollama's: ``{"model", "created_at", "message": {"role": "assistant", "content"},
"done": false}`` per token, then ``{"done": true, "done_reason": "stop", "eval_count", ...}``.
Errors are ``{"error": "..."}``, as a body with a non-2xx status or as a line mid-stream.
"""

from __future__ import annotations

import json
from datetime import UTC, datetime
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

__all__ = ["OK_OUTPUT_TOKENS", "OK_TOKENS", "create_app"]

OK_TOKENS = ("Hello", " from", " the", " fake", ".")
OK_OUTPUT_TOKENS = len(OK_TOKENS)
STREAMING_BEHAVIOURS = frozenset(
    {"ok", "disconnect", "stall", "truncated", "error-line", "garbage", *STREAM_FAULTS}
)


def _line(payload: dict[str, Any]) -> bytes:
    return json.dumps(payload).encode() + b"\n"


def _token(model: str, content: str) -> bytes:
    return _line(
        {
            "model": model,
            "created_at": datetime.now(UTC).isoformat(),
            "message": {"role": "assistant", "content": content},
            "done": False,
        }
    )


def _done(model: str, eval_count: int) -> bytes:
    return _line(
        {
            "model": model,
            "created_at": datetime.now(UTC).isoformat(),
            "message": {"role": "assistant", "content": ""},
            "done": True,
            "done_reason": "stop",
            "total_duration": 4_883_583_458,
            "load_duration": 1_334_875,
            "prompt_eval_count": 26,
            "prompt_eval_duration": 342_546_000,
            "eval_count": eval_count,
            "eval_duration": 4_535_599_000,
        }
    )


def create_app(recorder: Recorder) -> Starlette:
    """The fake server; every request is kept in ``recorder``."""

    async def chat(request: Request) -> Response:
        body = (await recorder.record(request)).json
        model = str(body.get("model", ""))
        behaviour = resolve_behaviour(behaviour_of(model), model, recorder)
        fault = fault_response(
            behaviour,
            error=lambda status, message: JSONResponse({"error": message}, status_code=status),
            media_type="application/x-ndjson",
            recorder=recorder,
            label=model,
        )
        if fault is not None:
            return fault
        if behaviour == "rate-limited":
            return JSONResponse({"error": f"too many requests for {model}"}, status_code=429)
        if behaviour == "server-error":
            return JSONResponse(
                {"error": f"llama runner process for {model} has terminated"}, status_code=500
            )
        if behaviour not in STREAMING_BEHAVIOURS:
            return JSONResponse(
                {"error": f'model "{model}" not found, try pulling it first'}, status_code=404
            )
        ending: Ending = "end"
        interval = 0.0
        if behaviour == "ok":
            pieces = [_token(model, token) for token in OK_TOKENS]
            pieces.append(_done(model, OK_OUTPUT_TOKENS))
        elif behaviour == "disconnect":
            pieces = [_token(model, token) for token in OK_TOKENS[:2]]
            ending = "break"
        elif behaviour == "stall":
            pieces = [_token(model, OK_TOKENS[0])]
            ending = "stall"
        elif behaviour == "truncated":
            pieces = [_token(model, token) for token in OK_TOKENS[:2]]
        elif behaviour == "garbage":
            pieces = [_token(model, OK_TOKENS[0]), b"{not json\n"]
        elif behaviour == "reset-after-token":
            pieces = [_token(model, OK_TOKENS[0])]
            ending = "reset"
        elif behaviour == "malformed":
            pieces = [b"{not json\n"]
        elif behaviour == "drip":
            pieces = [_token(model, token) for token in OK_TOKENS]
            pieces.append(_done(model, OK_OUTPUT_TOKENS))
            interval = DRIP_INTERVAL_S
        elif behaviour == "oversized":
            pieces = [_token(model, OK_TOKENS[0])]
            pieces.append(b'{"model":"m","message":{"role":"assistant","content":"')
            pieces += [*filler(), b'"},"done":false}\n']
            pieces.append(_done(model, OK_OUTPUT_TOKENS))
        else:  # error-line
            pieces = [_token(model, OK_TOKENS[0])]
            pieces.append(_line({"error": f"an error was encountered while running {model}"}))
        return ScriptedStream(
            pieces,
            media_type="application/x-ndjson",
            recorder=recorder,
            ending=ending,
            interval=interval,
            label=model,
        )

    return Starlette(routes=[Route("/api/chat", chat, methods=["POST"])])
