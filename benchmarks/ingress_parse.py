"""Cost of reading a foreign request envelope, per protocol, against ``json.loads`` in the same run.

Each protocol's ingress parser reads the same conversation: a short body (one user message) and
a 21-message transcript (ten user/assistant exchanges, then the new user message, with arena
fields and the extras real clients send). The figure is microseconds per parse of the decoded
body, the best of ``--repeat`` rounds of ``--number`` parses (the least disturbed; a parser
never mutates the body, so one decoded body serves every parse). The ratio is against
``json.loads`` of the same body's bytes, the work every request pays anyway. ``openai-text`` is
the chat front's reader (``read_chat_call``), which also keeps the history.

Usage: python benchmarks/ingress_parse.py [--number N] [--repeat R]
"""

from __future__ import annotations

import argparse
import functools
import json
import time
from collections.abc import Callable, Sequence
from typing import Any

from arena_api.protocols import get_protocol, parse_chat_body
from arena_api.protocols.openai_text import read_chat_call

CONVERSATION = "5d9f0e1a-2b3c-4d5e-8f9a-0b1c2d3e4f5a"
_QUESTION = "Which is faster for a 10 GB CSV join, pandas or polars, and why? Show me the code."
_ANSWER = "Polars is usually faster: it is multi-threaded and lazy. " * 12


def _exchanges(turns: int) -> list[tuple[str, str]]:
    """``turns`` earlier (user, assistant) pairs of realistic length."""
    return [(f"{_QUESTION} (take {n})", _ANSWER) for n in range(turns)]


def ag_ui_body(turns: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for n, (question, answer) in enumerate(_exchanges(turns)):
        messages.append({"id": f"u{n}", "role": "user", "content": question})
        messages.append({"id": f"a{n}", "role": "assistant", "content": answer})
    messages.append({"id": "new", "role": "user", "content": [{"type": "text", "text": _QUESTION}]})
    return {
        "threadId": "thread-1",
        "runId": "run-7",
        "messages": messages,
        "tools": [],
        "context": [],
        "state": {},
        "forwardedProps": {"sessionId": "browser-42", "conversationId": CONVERSATION},
    }


def openai_body(turns: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = [{"role": "system", "content": "You are helpful."}]
    for question, answer in _exchanges(turns):
        messages.append({"role": "user", "content": question})
        messages.append({"role": "assistant", "content": answer})
    if turns:
        messages.pop(0)  # 21 messages: ten exchanges and the new question
    messages.append({"role": "user", "content": _QUESTION})
    return {
        "model": "arena-duel",
        "messages": messages,
        "stream": True,
        "temperature": 0.7,
        "user": {"id": "owui-1", "name": "Ann", "email": "ann@example.org", "role": "user"},
        "omni_arena": {"sessionId": "browser-42", "conversationId": CONVERSATION},
    }


def use_chat_body(turns: int) -> dict[str, Any]:
    messages: list[dict[str, Any]] = []
    for n, (question, answer) in enumerate(_exchanges(turns)):
        messages.append(
            {"id": f"u{n}", "role": "user", "parts": [{"type": "text", "text": question}]}
        )
        messages.append(
            {
                "id": f"a{n}",
                "role": "assistant",
                "parts": [
                    {"type": "step-start"},
                    {"type": "text", "text": answer, "state": "done"},
                ],
            }
        )
    messages.append({"id": "new", "role": "user", "parts": [{"type": "text", "text": _QUESTION}]})
    return {
        "id": "chat-1",
        "messages": messages,
        "trigger": "submit-message",
        "messageId": None,
        "sessionId": "browser-42",
        "conversationId": CONVERSATION,
    }


Parser = Callable[[Any], object]
PARSERS: dict[str, tuple[Callable[[int], dict[str, Any]], Parser]] = {
    "ag-ui": (ag_ui_body, lambda body: parse_chat_body(get_protocol("ag-ui"), body)),
    "openai": (openai_body, lambda body: parse_chat_body(get_protocol("openai"), body)),
    "openai-text": (openai_body, read_chat_call),
    "vercel-ai": (use_chat_body, lambda body: parse_chat_body(get_protocol("vercel-ai"), body)),
}
SIZES = {"short": 0, "21 msgs": 10}


def best_micros(call: Callable[[], object], number: int, repeat: int) -> float:
    """Best-of-``repeat`` microseconds per call, each round timing ``number`` calls."""
    best = float("inf")
    for _ in range(repeat):
        start = time.perf_counter()
        for _ in range(number):
            call()
        best = min(best, time.perf_counter() - start)
    return best / number * 1e6


def main(argv: Sequence[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--number", type=int, default=500, help="parses per round")
    parser.add_argument("--repeat", type=int, default=40, help="rounds per figure (best kept)")
    args = parser.parse_args(argv)

    print(f"best of {args.repeat} rounds of {args.number} parses")
    print(f"{'protocol':<12} {'body':<8} {'bytes':>6} {'json us':>8} {'parse us':>9} {'x json':>7}")
    for name, (build, parse) in PARSERS.items():
        for size, turns in SIZES.items():
            body = build(turns)
            raw = json.dumps(body).encode()
            decoded = json.loads(raw)
            parse(decoded)  # fail here, not in the loop, on a body the parser refuses
            baseline = best_micros(functools.partial(json.loads, raw), args.number, args.repeat)
            micros = best_micros(functools.partial(parse, decoded), args.number, args.repeat)
            print(
                f"{name:<12} {size:<8} {len(raw):>6} {baseline:>8.2f} {micros:>9.2f} "
                f"{micros / baseline:>7.2f}"
            )


if __name__ == "__main__":
    main()
