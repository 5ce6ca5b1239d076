"""Open WebUI's background helper tasks, answered without asking any model.

Open WebUI asks the chat's model, with ``stream: false``, for a title (on a chat's first message),
tags and follow-up suggestions, each as one user message that starts ``### Task:`` and holds the
chat so far in ``<chat_history>``. Put to the arena, every one would be a matchup nobody votes on
(and a cost); answered by a hidden model, a title could name it. So each gets, at once, a valid
answer in the JSON shape its instructions ask for: a neutral title made from the user's own first
message, and empty lists or text for the rest. Nothing is stored and no model is called.
"""

from __future__ import annotations

import json
import re

from arena_api.core.requests import ChatCall

__all__ = ["answer_helper_task", "is_helper_task"]

_TASK_PREFIX = "### Task:"
_HISTORY_OPEN, _HISTORY_CLOSE = "<chat_history>", "</chat_history>"
# The JSON keys the stock task templates ask for, most specific first.
_LIST_KEYS = ("follow_ups", "tags", "queries")
_TEXT_KEYS = ("title", "text", "prompt")
_TITLE_WORDS = 6
_TITLE_CHARS = 48
_FIRST_USER = re.compile(r"^USER:\s*(.+)$", re.MULTILINE)
_MARKUP = re.compile(r"[`*_#>\[\]()|~\"]+")


def is_helper_task(call: ChatCall) -> bool:
    """A ``stream: false`` request whose prompt is a task over the chat history."""
    text = call.prompt.lstrip()
    return not call.stream and text.startswith(_TASK_PREFIX) and _HISTORY_OPEN in text


def _asked_key(instructions: str) -> str | None:
    """The key the task's output format asks for (``{ "title": ... }``), if a known one."""
    for key in (*_LIST_KEYS, *_TEXT_KEYS):
        if re.search(rf'"{key}"\s*:', instructions):
            return key
    return None


def neutral_title(history: str) -> str:
    """ "Arena: " and the first words of the user's first message; it names no model."""
    match = _FIRST_USER.search(history)
    words = _MARKUP.sub(" ", match.group(1)).split() if match else []
    if not words or words[0].startswith("!"):
        return "Arena round"
    title = " ".join(words[:_TITLE_WORDS])
    if len(title) > _TITLE_CHARS:
        title = title[:_TITLE_CHARS].rsplit(" ", 1)[0]
    return f"Arena: {title}" + ("…" if len(words) > _TITLE_WORDS else "")


def answer_helper_task(prompt: str) -> str:
    """The task's answer as the raw JSON its instructions ask for (``{}`` for an unknown task)."""
    instructions, _, rest = prompt.partition(_HISTORY_OPEN)
    history = rest.partition(_HISTORY_CLOSE)[0]
    key = _asked_key(instructions)
    if key == "title":
        return json.dumps({"title": neutral_title(history)}, ensure_ascii=False)
    if key in _LIST_KEYS:
        return json.dumps({key: []})
    if key is not None:
        return json.dumps({key: ""})
    return "{}"
