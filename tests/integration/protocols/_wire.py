"""Test-side readers of each protocol's wire, and each protocol's own request envelope.

These are deliberately independent of the adapters (no import from ``arena_api.protocols``
beyond names), so a framing bug cannot hide behind a shared helper.
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any

import httpx

__all__ = ["Round", "data_lines", "envelope", "read_round", "READERS"]

MARKER = "[omni-arena:slot-error]"


@dataclass
class Round:
    """What a client of any protocol can know about a round from its response."""

    metadata: dict[str, Any] = field(default_factory=dict)
    texts: dict[str, str] = field(default_factory=dict)
    slot_errors: dict[str, str] = field(default_factory=dict)
    slot_error_codes: dict[str, str] = field(default_factory=dict)  # where the format has one
    finished: set[str] = field(default_factory=set)
    terminal: str | None = None  # "done" | "error"
    error: dict[str, Any] | None = None

    def add(self, slot: str, text: str) -> None:
        self.texts[slot] = self.texts.get(slot, "") + text


def data_lines(raw: str) -> list[str]:
    """The ``data:`` payloads of an SSE body (comments and ``event:`` lines skipped)."""
    payloads = []
    for block in raw.split("\n\n"):
        data = [line[5:].lstrip(" ") for line in block.split("\n") if line.startswith("data:")]
        if data:
            payloads.append("\n".join(data))
    return payloads


def _native(raw: str) -> Round:
    round_ = Round()
    for payload in data_lines(raw):
        event = json.loads(payload)
        kind = event["type"]
        if kind == "matchup_started":
            round_.metadata = {k: v for k, v in event.items() if k != "type"}
        elif kind == "token":
            round_.add(event["slot"], event["token"])
        elif kind == "slot_error":
            round_.slot_errors[event["slot"]] = event["message"]
            round_.slot_error_codes[event["slot"]] = event.get("code", "")
        elif kind == "slot_done":
            round_.finished.add(event["slot"])
        elif kind == "matchup_done":
            round_.terminal = "done"
        elif kind == "run_error":
            round_.terminal, round_.error = "error", event
    return round_


def _ag_ui(raw: str) -> Round:
    round_ = Round()
    for payload in data_lines(raw):
        event = json.loads(payload)
        kind = event["type"]
        if kind == "CUSTOM" and event["name"] == "arena_matchup":
            round_.metadata = event["value"]
        elif kind == "CUSTOM" and event["name"] == "slot_error":
            round_.slot_errors[event["value"]["slot"]] = event["value"]["message"]
            round_.slot_error_codes[event["value"]["slot"]] = event["value"].get("code", "")
        elif kind == "TEXT_MESSAGE_CONTENT":
            slot = event["messageId"].rsplit(":", 1)[1]
            if MARKER not in event["delta"]:
                round_.add(slot, event["delta"])
        elif kind == "TEXT_MESSAGE_END":
            round_.finished.add(event["messageId"].rsplit(":", 1)[1])
        elif kind == "RUN_FINISHED":
            round_.terminal = "done"
        elif kind == "RUN_ERROR":
            round_.terminal, round_.error = "error", event
    return round_


def _a2ui(raw: str) -> Round:
    round_ = Round()
    for line in raw.splitlines():
        message = json.loads(line)
        assert message["v"] == "a2ui/1"
        kind = message["kind"]
        if kind == "surface_init":
            round_.metadata = {
                k: v for k, v in message.items() if k not in ("v", "kind", "surfaces")
            }
            round_.metadata["slots"] = message["surfaces"]
        elif kind == "text_append":
            round_.add(message["surface"], message["text"])
        elif kind == "error":
            round_.slot_errors[message["surface"]] = message["message"]
            round_.slot_error_codes[message["surface"]] = message.get("code", "")
        elif kind == "surface_done":
            round_.finished.add(message["surface"])
        elif kind == "session_done":
            round_.terminal = "done"
        elif kind == "session_error":
            round_.terminal, round_.error = "error", message
    return round_


def _a2ui_v09(raw: str) -> Round:
    round_ = Round()
    slots: dict[str, str] = {}
    for line in raw.splitlines():
        message = json.loads(line)
        assert message.pop("version") == "v0.9" and len(message) == 1
        ((kind, body),) = message.items()
        if kind == "createSurface":
            slots[body["surfaceId"]] = body["surfaceId"].rsplit(":", 1)[1]
        elif kind == "updateDataModel":
            slot = slots[body["surfaceId"]]
            path, value = body.get("path", "/"), body.get("value")
            if path == "/":
                round_.metadata = value["matchup"]
            elif path == "/text":
                round_.texts[slot] = value
            elif path == "/error":
                round_.slot_errors[slot] = value
            elif path == "/status" and value in ("done", "error"):
                round_.finished.add(slot)
            elif path == "/status" and value == "failed":
                round_.terminal = "error"
    if round_.terminal is None and round_.finished == set(slots.values()):
        round_.terminal = "done"
    return round_


def _vercel(raw: str) -> Round:
    round_ = Round()
    payloads = data_lines(raw)
    assert payloads[-1] == "[DONE]"
    main = "A"
    for payload in payloads[:-1]:
        chunk = json.loads(payload)
        kind = chunk["type"]
        if kind == "data-arena-meta":
            round_.metadata = {
                k: v for k, v in chunk["data"].items() if k not in ("mainSlot", "dataSlot")
            }
            main = chunk["data"]["mainSlot"]
        elif kind == "text-delta":
            round_.add(main, chunk["delta"])
        elif kind == "data-arena-b-delta":
            round_.add("B", chunk["data"]["text"])
        elif kind == "data-arena-error":
            round_.slot_errors[chunk["data"]["slot"]] = chunk["data"]["message"]
            round_.slot_error_codes[chunk["data"]["slot"]] = chunk["data"].get("code", "")
        elif kind == "text-end":
            round_.finished.add(main)
        elif kind == "data-arena-b-done":
            round_.finished.add("B")
        elif kind == "finish":
            round_.terminal = "done"
        elif kind == "error":
            round_.terminal, round_.error = "error", chunk
    return round_


def _openai(raw: str) -> Round:
    round_ = Round()
    payloads = data_lines(raw)
    assert payloads[-1] == "[DONE]"
    slot_of = {0: "A", 1: "B"}
    for payload in payloads[:-1]:
        chunk = json.loads(payload)
        if "error" in chunk:
            round_.terminal, round_.error = "error", chunk["error"]
            continue
        if "omni_arena" in chunk:
            round_.metadata = chunk["omni_arena"]
        if "omni_arena_error" in chunk:
            error = chunk["omni_arena_error"]
            round_.slot_errors[error["slot"]] = error["message"]
            round_.slot_error_codes[error["slot"]] = error.get("code", "")
        for choice in chunk["choices"]:
            slot = slot_of[choice["index"]]
            content = choice["delta"].get("content")
            if content and MARKER not in content:
                round_.add(slot, content)
            if choice["finish_reason"] == "stop":
                round_.finished.add(slot)
    if round_.terminal is None and round_.finished == set(round_.metadata.get("slots", ())):
        round_.terminal = "done"
    return round_


READERS: dict[str, Callable[[str], Round]] = {
    "sse": _native,
    "ag-ui": _ag_ui,
    "a2ui": _a2ui,
    "a2ui-v0.9": _a2ui_v09,
    "vercel-ai": _vercel,
    "openai": _openai,
}


def read_round(protocol: str, response: httpx.Response) -> Round:
    return READERS[protocol](response.text)


def envelope(protocol: str, prompt: str, **arena: Any) -> dict[str, Any]:
    """The request body a stock client of ``protocol`` posts, arena fields in its extension slot."""
    if protocol == "ag-ui":
        return {
            "threadId": f"thread-{uuid.uuid4()}",
            "runId": f"run-{uuid.uuid4()}",
            "state": {},
            "messages": [{"id": "u1", "role": "user", "content": prompt}],
            "tools": [],
            "context": [],
            "forwardedProps": arena,
        }
    if protocol == "vercel-ai":
        return {
            "id": "chat-1",
            "messages": [{"id": "u1", "role": "user", "parts": [{"type": "text", "text": prompt}]}],
            "trigger": "submit-message",
            **arena,
        }
    if protocol == "openai":
        body: dict[str, Any] = {
            "model": "arena",
            "stream": True,
            "messages": [{"role": "user", "content": prompt}],
        }
        if arena:
            body["omni_arena"] = arena
        return body
    return {"prompt": prompt, **arena}
