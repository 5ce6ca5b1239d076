"""A fake OpenAI chat-completions endpoint: ``POST /v1/chat/completions`` with ``stream: true``.

The stream is OpenAI's SSE: ``data: {"object": "chat.completion.chunk", ...}`` lines (a role
delta, the content deltas, a delta with ``"finish_reason": "stop"``), then a usage chunk with
``"choices": []`` when ``stream_options.include_usage`` was asked for, then ``data: [DONE]``.
Errors use OpenAI's body ``{"error": {"message", "type", "param", "code"}}``; like OpenAI's, the
messages name the model.
"""

from __future__ import annotations

import json
import re
import time
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

__all__ = [
    "HOSTILE_TOKENS",
    "JUDGE_AS_TOLD",
    "JUDGE_OUTPUT_TOKENS",
    "JUDGE_VERDICTS",
    "MARKDOWN_ANSWER",
    "PROSE_ANSWER",
    "OK_OUTPUT_TOKENS",
    "OK_TOKENS",
    "create_app",
    "model_version",
]

OK_TOKENS = ("Hello", " from", " the", " fake", ".")
OK_OUTPUT_TOKENS = len(OK_TOKENS)
# What a hostile model could answer: each piece must render inert in the arena's UI.
HOSTILE_TOKENS = (
    "Here is <script>window.__pwned = 'script'</script> some text. ",
    '<img src="x" onerror="window.__pwned = \'img\'"> ',
    "[click me](javascript:window.__pwned='link') ",
    "<a href=\"javascript:window.__pwned='anchor'\">anchor</a>",
)
# An answer using most of Markdown, streamed three characters at a time ("markdown").
MARKDOWN_ANSWER = (
    "## Plan\n\nA first paragraph with **bold** words and `inline code`.\n\n"
    "1. one\n2. two\n\n3. three, after a blank line\n\n"
    "```python\ndef double(x):\n\n    return x * 2\n```\n\n"
    "| key | value |\n|---|---|\n| a | 1 |\n| b | 2 |\n\n"
    "> A quote.\n\nThe last paragraph ends here."
)
MARKDOWN_PIECE, MARKDOWN_INTERVAL = 3, 0.004
# A long line of plain prose, then a second paragraph, a word every 50 ms ("prose"); each word
# carries the space or blank line after it, as a model's tokens often do.
PROSE_ANSWER = (
    " ".join(f"word{i}" for i in range(40))
    + "\n\n"
    + " ".join(f"more{i}" for i in range(12))
    + " The end."
)
PROSE_INTERVAL = 0.05
STREAMING_BEHAVIOURS = frozenset(
    {
        "ok",
        "hostile",
        "markdown",
        "prose",
        "disconnect",
        "stall",
        "truncated",
        "error-line",
        "garbage",
        *STREAM_FAULTS,
    }
)
PROMPT_TOKENS = 11
# A judge's answers, by behaviour: as real judges write them (fenced JSON with prose around it,
# plain statements), one always for the answer shown first, one never readable, one slow.
JUDGE_VERDICTS = {
    "judge-first": 'Both are decent.\n```json\n{"reasoning": "The first answer is more '
    'direct.", "verdict": "A"}\n```',
    "judge-second": '{"reasoning": "The second answer is clearer.", "verdict": "B"}',
    "judge-tie": "They are equally good. Verdict: tie",
    "judge-garbage": "I am unable to compare these two answers.",
    "judge-slow": '{"reasoning": "Took a while.", "verdict": "A"}',
}
JUDGE_OUTPUT_TOKENS = 17
#: Seconds between the slow judge's pieces (a window for a person's vote to land first).
JUDGE_SLOW_INTERVAL = 0.25
#: A judge that gives the verdict the round's prompt asks of it, ``[judge: X]``: ``tie`` or
#: ``both_bad``, or ``plain`` / ``markdown`` for the answer that is the ``ok`` one or not,
#: wherever it was shown; so a test knows each verdict in slots, whatever order was drawn.
JUDGE_AS_TOLD = "judge-as-told"
_TOLD = re.compile(r"\[judge: (\w+)\]")


def _told_verdict(body: dict[str, Any]) -> str:
    """The verdict ``judge-as-told`` writes for the judge's messages in ``body``."""
    text = str(body["messages"][-1]["content"])
    wanted = _TOLD.search(text)
    if wanted is None:
        return "No instruction found."
    choice = wanted.group(1)
    if choice in ("plain", "markdown"):
        shown_first = text.split("[Answer A]", 1)[1].split("[Answer B]", 1)[0]
        first_is_plain = "".join(OK_TOKENS) in shown_first
        choice = "A" if (choice == "plain") == first_is_plain else "B"
    return json.dumps({"reasoning": f"As told: {wanted.group(1)}.", "verdict": choice})


def model_version(model: str) -> str:
    """The dated snapshot the fake says answered, as OpenAI resolves an alias."""
    return f"{model}-2024-08-06"


def _error(status: int, message: str, type_: str, code: str | None) -> JSONResponse:
    body = {"error": {"message": message, "type": type_, "param": None, "code": code}}
    return JSONResponse(body, status_code=status)


def _event(payload: object) -> bytes:
    return b"data: " + json.dumps(payload, separators=(",", ":")).encode() + b"\n\n"


class _Chunks:
    """Builds the ``chat.completion.chunk`` objects of one completion."""

    def __init__(self, model: str, include_usage: bool) -> None:
        self.id = f"chatcmpl-fake{int(time.time() * 1000)}"
        self.created = int(time.time())
        self.model = model_version(model)
        self.include_usage = include_usage

    def _base(self, choices: list[dict[str, Any]]) -> dict[str, Any]:
        chunk: dict[str, Any] = {
            "id": self.id,
            "object": "chat.completion.chunk",
            "created": self.created,
            "model": self.model,
            "system_fingerprint": "fp_fake",
            "choices": choices,
        }
        if self.include_usage:
            chunk["usage"] = None
        return chunk

    def delta(self, delta: dict[str, str], finish_reason: str | None = None) -> bytes:
        choice = {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish_reason}
        return _event(self._base([choice]))

    def usage(self, completion_tokens: int) -> bytes:
        chunk = self._base([])
        chunk["usage"] = {
            "prompt_tokens": PROMPT_TOKENS,
            "completion_tokens": completion_tokens,
            "total_tokens": PROMPT_TOKENS + completion_tokens,
        }
        return _event(chunk)


def create_app(recorder: Recorder) -> Starlette:
    """The fake endpoint; every request is kept in ``recorder``."""

    async def chat_completions(request: Request) -> Response:
        body = (await recorder.record(request)).json
        model = str(body.get("model", ""))
        behaviour = resolve_behaviour(behaviour_of(model), model, recorder)
        fault = fault_response(
            behaviour,
            error=lambda status, message: _error(status, message, "server_error", None),
            media_type="text/event-stream",
            recorder=recorder,
            label=model,
        )
        if fault is not None:
            return fault
        if behaviour == "rate-limited":
            return _error(
                429,
                f"Rate limit reached for {model} in organization org-fake on requests per min "
                "(RPM): Limit 3, Used 3, Requested 1. Please try again in 20s. Visit "
                "https://platform.openai.com/account/rate-limits to learn more.",
                "requests",
                "rate_limit_exceeded",
            )
        if behaviour == "server-error":
            return _error(
                500,
                f"The server had an error while processing your request to {model}. Sorry!",
                "server_error",
                None,
            )
        judging = behaviour in JUDGE_VERDICTS or behaviour == JUDGE_AS_TOLD
        if behaviour not in STREAMING_BEHAVIOURS and not judging:
            return _error(
                404,
                f"The model `{model}` does not exist or you do not have access to it.",
                "invalid_request_error",
                "model_not_found",
            )
        include_usage = bool((body.get("stream_options") or {}).get("include_usage"))
        chunks = _Chunks(model, include_usage)
        pieces = [chunks.delta({"role": "assistant", "content": ""})]
        ending: Ending = "end"
        interval = 0.0
        if judging:
            verdict = JUDGE_VERDICTS.get(behaviour) or _told_verdict(body)
            pieces += [
                chunks.delta({"content": verdict[i : i + 20]}) for i in range(0, len(verdict), 20)
            ]
            pieces.append(chunks.delta({}, finish_reason="stop"))
            if include_usage:
                pieces.append(chunks.usage(JUDGE_OUTPUT_TOKENS))
            pieces.append(b"data: [DONE]\n\n")
            interval = JUDGE_SLOW_INTERVAL if behaviour == "judge-slow" else 0.0
        elif behaviour in ("ok", "hostile", "markdown", "prose"):
            tokens: tuple[str, ...] = OK_TOKENS
            if behaviour == "hostile":
                tokens = HOSTILE_TOKENS
            elif behaviour == "markdown":
                tokens = tuple(
                    MARKDOWN_ANSWER[i : i + MARKDOWN_PIECE]
                    for i in range(0, len(MARKDOWN_ANSWER), MARKDOWN_PIECE)
                )
                interval = MARKDOWN_INTERVAL
            elif behaviour == "prose":
                tokens = tuple(re.findall(r"\S+\s*", PROSE_ANSWER))
                interval = PROSE_INTERVAL
            pieces += [chunks.delta({"content": token}) for token in tokens]
            pieces.append(chunks.delta({}, finish_reason="stop"))
            if include_usage:
                pieces.append(chunks.usage(OK_OUTPUT_TOKENS))
            pieces.append(b"data: [DONE]\n\n")
        elif behaviour == "disconnect":
            pieces += [chunks.delta({"content": token}) for token in OK_TOKENS[:2]]
            ending = "break"
        elif behaviour == "stall":
            pieces.append(chunks.delta({"content": OK_TOKENS[0]}))
            ending = "stall"
        elif behaviour == "truncated":
            pieces += [chunks.delta({"content": token}) for token in OK_TOKENS[:2]]
            pieces.append(b"data: [DONE]\n\n")
        elif behaviour == "garbage":
            pieces.append(chunks.delta({"content": OK_TOKENS[0]}))
            pieces.append(b"data: {not json\n\n")
        elif behaviour == "reset-after-token":
            pieces.append(chunks.delta({"content": OK_TOKENS[0]}))
            ending = "reset"
        elif behaviour == "malformed":
            pieces.append(b"data: {not json\n\n")
        elif behaviour == "drip":
            # The role and the first token at once, then a token per interval.
            pieces = [pieces[0] + chunks.delta({"content": OK_TOKENS[0]})]
            pieces += [chunks.delta({"content": token}) for token in OK_TOKENS[1:]]
            pieces += [chunks.delta({}, finish_reason="stop"), b"data: [DONE]\n\n"]
            interval = DRIP_INTERVAL_S
        elif behaviour == "oversized":
            pieces.append(chunks.delta({"content": OK_TOKENS[0]}))
            pieces.append(b'data: {"choices":[{"index":0,"delta":{"content":"')
            pieces += [*filler(), b'"},"finish_reason":null}]}\n\n']
            pieces += [chunks.delta({}, finish_reason="stop"), b"data: [DONE]\n\n"]
        else:  # error-line
            pieces.append(chunks.delta({"content": OK_TOKENS[0]}))
            error = {"message": f"{model} overloaded", "type": "server_error", "code": None}
            pieces.append(_event({"error": error}))
        return ScriptedStream(
            pieces,
            media_type="text/event-stream",
            recorder=recorder,
            ending=ending,
            interval=interval,
            label=model,
        )

    return Starlette(routes=[Route("/v1/chat/completions", chat_completions, methods=["POST"])])
