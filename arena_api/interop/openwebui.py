"""Open WebUI's evaluation feedback (Admin > Evaluations > Export, or ``GET
/api/v1/evaluations/feedbacks/all/export``) read as battles.

Each record is one rating of one answer (Open WebUI 0.12's ``FeedbackModel``): ``id``,
``user_id``, ``type`` (``rating``), ``data`` (``rating``: 1 or -1, ``model_id``: the rated
model, ``sibling_model_ids``: the models that answered the same message, ``reason``,
``comment``, ``details``), ``meta`` (``arena``: whether the rated answer came from an arena
model, ``chat_id``, ``message_id``), ``snapshot.chat`` (the chat as it was) and
``created_at`` (Unix seconds).

Votes are counted as Open WebUI's own leaderboard counts them (its ``_calculate_elo``): a
rating of 1 is a win of the rated model over each sibling, -1 a loss to each; a rating of
anything else, or one with no siblings (a thumbs on a single answer), compares nothing and is
skipped, and counted as such. So one record gives one battle per sibling, the rated model in
slot A; its id is the record's id and the sibling's. A rating made in an arena chat
(``meta.arena``) is a blind round; one made comparing named models side by side is a named one.

Text comes from the snapshot where it holds the rated answer: the user message it answers and
each sibling's answer to the same message. Earlier turns of the chat are not imported (which
model wrote them is not in the snapshot reliably), so an imported round is one turn. The
reason (one per rating, Open WebUI's form keys or older English labels) is mapped onto ours by
``arena_api.core.reasons.VoteReasons.adopt``; one we have no reason for is dropped.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Iterator, Mapping
from datetime import UTC, datetime
from typing import IO, Any

from arena_api.interop.battles import BadRecord, Battle, Exchange
from arena_api.interop.jsonstream import json_values
from arena_api.interop.lmarena import MAX_NAME

__all__ = ["OpenWebUIFeedback", "read_feedback"]

#: The most siblings one rating may compare (Open WebUI's compare view shows a few columns).
MAX_SIBLINGS = 16
_EARLIEST, _LATEST = 946_684_800, 4_102_444_800


class OpenWebUIFeedback:
    """Counts what a feedback file held besides battles: ratings that compare nothing."""

    def __init__(self, adopt: Callable[[str], str | None] | None = None) -> None:
        self._adopt = adopt
        #: Ratings skipped: no siblings (not an arena or comparison rating) or no thumbs.
        self.skipped = 0

    def read(self, stream: IO[str]) -> Iterator[Battle | BadRecord]:
        """Every battle of a feedback export, and each record that could not be read."""
        for where, value in json_values(stream):
            if isinstance(value, ValueError):
                yield BadRecord(where, str(value))
                continue
            place = where
            if isinstance(value, dict) and isinstance(value.get("id"), str):
                place = f"{where} (feedback {value['id'][:80]})"
            try:
                battles = self._battles(value)
            except ValueError as exc:
                yield BadRecord(place, str(exc))
                continue
            if not battles:
                self.skipped += 1
            yield from battles

    def _battles(self, record: object) -> list[Battle]:
        if not isinstance(record, dict):
            raise ValueError("a feedback record must be a JSON object")
        feedback_id = record.get("id")
        if not isinstance(feedback_id, str) or not 0 < len(feedback_id) <= 200:
            raise ValueError("id must be a string of at most 200 characters")
        data = record.get("data") or {}
        meta = record.get("meta") or {}
        if not isinstance(data, dict) or not isinstance(meta, dict):
            raise ValueError("data and meta must be objects")
        siblings = data.get("sibling_model_ids") or []
        rating = str(data.get("rating", ""))
        if record.get("type", "rating") != "rating" or rating not in ("1", "-1") or not siblings:
            return []
        model = _name(data.get("model_id"), "data.model_id")
        if not isinstance(siblings, list) or len(siblings) > MAX_SIBLINGS:
            raise ValueError(f"data.sibling_model_ids must be a list of at most {MAX_SIBLINGS}")
        others = [_name(s, "data.sibling_model_ids") for s in siblings]
        voted_at = _timestamp(record.get("created_at"))
        user = record.get("user_id")
        reasons = self._reasons(data.get("reason"))
        texts = _texts(record.get("snapshot"), meta.get("message_id"))
        battles = []
        for other in others:
            if other == model:
                continue  # a regeneration by the same model compares nothing
            prompt, answers = texts if texts else (None, {})
            exchanges: tuple[Exchange, ...] = ()
            if prompt is not None:
                exchanges = (Exchange(prompt, answers.get(model), answers.get(other)),)
            battles.append(
                Battle(
                    source="openwebui",
                    source_id=f"{feedback_id}:{other}",
                    model_a=model,
                    model_b=other,
                    vote="left" if rating == "1" else "right",
                    voted_at=voted_at,
                    named=meta.get("arena") is not True,
                    voter=user if isinstance(user, str) and user else None,
                    exchanges=exchanges,
                    reasons=reasons,
                )
            )
        return battles

    def _reasons(self, reason: object) -> tuple[str, ...]:
        if self._adopt is None or not isinstance(reason, str) or not reason.strip():
            return ()
        ours = self._adopt(reason)
        return (ours,) if ours else ()


def read_feedback(
    stream: IO[str], adopt: Callable[[str], str | None] | None = None
) -> Iterator[Battle | BadRecord]:
    """The battles of an Open WebUI feedback export (see ``OpenWebUIFeedback`` for counts)."""
    return OpenWebUIFeedback(adopt).read(stream)


def _name(value: object, key: str) -> str:
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must name a model")
    if len(value) > MAX_NAME:
        raise ValueError(f"{key} is longer than {MAX_NAME} characters")
    return value.strip()


def _timestamp(value: object) -> datetime:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError("created_at must be a Unix time in seconds")
    # Open WebUI writes seconds; a value in nanoseconds (some of its tables) is read as such.
    seconds = value / 1e9 if value > _LATEST * 1000 else value
    if not _EARLIEST <= seconds <= _LATEST:
        raise ValueError("created_at is not a time between 2000 and 2100")
    return datetime.fromtimestamp(seconds, UTC)


def _texts(snapshot: object, message_id: object) -> tuple[str, dict[str, str]] | None:
    """The prompt the rated answer replied to, and each model's answer to it, from the chat
    snapshot (``None`` when the snapshot does not hold them)."""
    if not isinstance(snapshot, dict) or not isinstance(message_id, str):
        return None
    chat = snapshot.get("chat")
    history = chat.get("chat", {}).get("history", {}) if isinstance(chat, dict) else {}
    messages = history.get("messages") if isinstance(history, dict) else None
    if not isinstance(messages, dict):
        return None
    rated = messages.get(message_id)
    parent = messages.get(rated.get("parentId")) if isinstance(rated, dict) else None
    if not isinstance(parent, dict) or not isinstance(parent.get("content"), str):
        return None
    answers: dict[str, str] = {}
    for child_id in parent.get("childrenIds") or []:
        child = messages.get(child_id)
        if isinstance(child, dict) and isinstance(child.get("content"), str):
            model = _model_of(child)
            if model is not None:
                answers.setdefault(model, child["content"])
    return parent["content"], answers


def _model_of(message: Mapping[str, Any]) -> str | None:
    model = message.get("selectedModelId") or message.get("model")
    return model.strip() if isinstance(model, str) and model.strip() else None
