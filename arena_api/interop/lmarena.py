"""LMArena's (FastChat's) battle records: read them as battles, write our votes as them.

The format is what FastChat's ``clean_battle_data.py`` writes and what the analysis notebooks
read (FastChat's ``elo_analysis.py``, ``arena-rank``): one object per battle with ``model_a``,
``model_b``, ``winner`` (``model_a``, ``model_b``, ``tie``, ``tie (bothbad)``; the newer releases
write ``both_bad``, read the same), ``judge`` (who
voted), ``turn`` (turns in the conversation), ``anony`` (a blind battle), ``language`` (an
English language name, ``"English"``), ``tstamp`` (Unix seconds), ``question_id`` and, in the
releases with text, ``conversation_a`` / ``conversation_b`` (``[{"role", "content"}]``, the
user's turns the same in both). Files are a JSON array or JSON Lines; both are read as a
stream, so a file of millions of battles never sits in memory whole.

Our labels map one to one: ``model_a`` is slot A (shown left), so ``model_a`` wins is ``left``,
``model_b`` is ``right``, ``tie`` is ``both_good`` and ``tie (bothbad)`` is ``both_bad``; a
skip has no LMArena form and is left out of an export. ``method`` (``human`` or ``judge``) is
our addition, written on export and read back; a record without it is a person's vote.
"""

from __future__ import annotations

import hashlib
import json
import math
from collections.abc import Iterator, Mapping
from datetime import UTC, datetime
from typing import IO, Any

from arena_api.core.sides import Vote
from arena_api.interop.battles import MAX_EXCHANGES, BadRecord, Battle, Exchange
from arena_api.interop.jsonstream import json_values

__all__ = [
    "LANGUAGE_NAMES",
    "WINNERS",
    "battle_record",
    "language_code",
    "language_name",
    "read_battles",
]

#: LMArena's ``winner`` values and our vote for each.
WINNERS: Mapping[str, Vote] = {
    "model_a": "left",
    "model_b": "right",
    "tie": "both_good",
    "tie (bothbad)": "both_bad",
}
#: The newer releases (and arena-rank) write ``both_bad``; read as ``tie (bothbad)``.
_READ_WINNERS: Mapping[str, Vote] = {**WINNERS, "both_bad": "both_bad"}
_WINNER_OF: Mapping[str, str] = {vote: winner for winner, vote in WINNERS.items()}

#: ISO 639-1 codes and the English names LMArena's records use.
LANGUAGE_NAMES: Mapping[str, str] = {
    "ar": "Arabic",
    "bn": "Bengali",
    "cs": "Czech",
    "da": "Danish",
    "de": "German",
    "el": "Greek",
    "en": "English",
    "es": "Spanish",
    "fa": "Persian",
    "fi": "Finnish",
    "fr": "French",
    "he": "Hebrew",
    "hi": "Hindi",
    "hu": "Hungarian",
    "id": "Indonesian",
    "it": "Italian",
    "ja": "Japanese",
    "ko": "Korean",
    "nl": "Dutch",
    "no": "Norwegian",
    "pl": "Polish",
    "pt": "Portuguese",
    "ro": "Romanian",
    "ru": "Russian",
    "sv": "Swedish",
    "th": "Thai",
    "tr": "Turkish",
    "uk": "Ukrainian",
    "vi": "Vietnamese",
    "zh": "Chinese",
}
_CODES = {name.casefold(): code for code, name in LANGUAGE_NAMES.items()}
_UNKNOWN = "unknown"

MAX_NAME = 400
#: tstamp must fall between these (Unix seconds): 2000-01-01 and 2100-01-01.
_EARLIEST, _LATEST = 946_684_800, 4_102_444_800


def language_name(code: str | None) -> str:
    """The name LMArena would give ``code`` (a code we have no name for stays as it is)."""
    if code is None or code == "und":
        return _UNKNOWN
    return LANGUAGE_NAMES.get(code, code)


def language_code(name: object) -> str | None:
    """Our code for an LMArena language name (or a code already), ``None`` when unknown."""
    if not isinstance(name, str) or not name.strip() or name.casefold() == _UNKNOWN:
        return None
    key = name.strip().casefold()
    if key in _CODES:
        return _CODES[key]
    return key if len(key) == 2 and key.isalpha() else None


# -- reading ---------------------------------------------------------------------------------


def read_battles(stream: IO[str]) -> Iterator[Battle | BadRecord]:
    """Every record of an LMArena battle file, as a battle or as the reason it is not one."""
    for where, value in json_values(stream):
        if isinstance(value, ValueError):
            yield BadRecord(where, str(value))
            continue
        try:
            yield _battle(value)
        except ValueError as exc:
            yield BadRecord(_where(where, value), str(exc))


def _where(where: str, value: object) -> str:
    if isinstance(value, dict) and isinstance(value.get("question_id"), str):
        return f"{where} (question_id {value['question_id'][:80]})"
    return where


def _name(record: Mapping[str, Any], key: str) -> str:
    value = record.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ValueError(f"{key} must be a model name")
    if len(value) > MAX_NAME:
        raise ValueError(f"{key} is longer than {MAX_NAME} characters")
    return value.strip()


def _text(content: object, where: str) -> str:
    """A message's text: a string, or the text parts of a list of parts."""
    if isinstance(content, str):
        return content
    if isinstance(content, list):
        parts = [p.get("text") for p in content if isinstance(p, dict) and p.get("type") == "text"]
        if all(isinstance(p, str) for p in parts):
            return "\n".join(parts)  # type: ignore[arg-type]
    raise ValueError(f"{where}: a message's content must be text")


def _exchanges(record: Mapping[str, Any]) -> tuple[Exchange, ...]:
    conversation_a, conversation_b = record.get("conversation_a"), record.get("conversation_b")
    if conversation_a is None and conversation_b is None:
        return ()
    if not isinstance(conversation_a, list) or not isinstance(conversation_b, list):
        raise ValueError("conversation_a and conversation_b must both be lists of messages")
    sides = [_turns(conversation_a, "conversation_a"), _turns(conversation_b, "conversation_b")]
    if [prompt for prompt, _ in sides[0]] != [prompt for prompt, _ in sides[1]]:
        raise ValueError("conversation_a and conversation_b ask different questions")
    if len(sides[0]) > MAX_EXCHANGES:
        raise ValueError(f"a conversation of more than {MAX_EXCHANGES} turns")
    return tuple(
        Exchange(prompt, answer_a, answer_b)
        for (prompt, answer_a), (_, answer_b) in zip(*sides, strict=True)
    )


def _turns(messages: list[object], key: str) -> list[tuple[str, str | None]]:
    """(prompt, answer) per turn: each user message and the assistant message after it."""
    turns: list[tuple[str, str | None]] = []
    for message in messages:
        if not isinstance(message, dict):
            raise ValueError(f"{key}: each message must be an object")
        role = message.get("role")
        text = _text(message.get("content"), key)
        if role == "user":
            turns.append((text, None))
        elif role == "assistant" and turns and turns[-1][1] is None:
            turns[-1] = (turns[-1][0], text)
        elif role == "system":
            continue
        else:
            raise ValueError(f"{key}: roles must alternate user, assistant")
    if not turns:
        raise ValueError(f"{key} has no user message")
    return turns


def _timestamp(value: object) -> datetime:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ValueError("tstamp must be a Unix time in seconds")
    if not _EARLIEST <= value <= _LATEST:
        raise ValueError("tstamp is not a time between 2000 and 2100")
    return datetime.fromtimestamp(value, UTC)


def _battle(record: object) -> Battle:
    if not isinstance(record, dict):
        raise ValueError("a battle must be a JSON object")
    model_a, model_b = _name(record, "model_a"), _name(record, "model_b")
    if model_a == model_b:
        raise ValueError("model_a and model_b are the same model")
    winner = record.get("winner")
    if not isinstance(winner, str) or winner not in _READ_WINNERS:
        raise ValueError(f"winner must be one of {', '.join(_READ_WINNERS)}")
    voted_at = _timestamp(record.get("tstamp"))
    anony = record.get("anony", True)
    if not isinstance(anony, bool):
        raise ValueError("anony must be true or false")
    method = record.get("method", "human")
    if method not in ("human", "judge"):
        raise ValueError("method must be human or judge")
    judge = record.get("judge")
    if judge is not None and not isinstance(judge, str):
        raise ValueError("judge must be a string")
    exchanges = _exchanges(record)
    question = record.get("question_id")
    if question is not None and not (isinstance(question, str) and 0 < len(question) <= 200):
        raise ValueError("question_id must be a string of at most 200 characters")
    return Battle(
        source="lmarena",
        source_id=question or _fingerprint(record),
        model_a=model_a,
        model_b=model_b,
        vote=_READ_WINNERS[winner],
        voted_at=voted_at,
        method=method,
        named=not anony,
        voter=judge or None,
        language=language_code(record.get("language")),
        exchanges=exchanges,
    )


def _fingerprint(record: Mapping[str, Any]) -> str:
    """An id for a record without ``question_id``: the same record always gets the same one."""
    keys = ("model_a", "model_b", "winner", "judge", "tstamp", "turn", "conversation_a")
    canonical = json.dumps([record.get(k) for k in keys], sort_keys=True, ensure_ascii=False)
    return "sha256:" + hashlib.sha256(canonical.encode()).hexdigest()


# -- writing ---------------------------------------------------------------------------------


def battle_record(
    row: Mapping[str, Any], conversation: list[tuple[str, str | None, str | None]] | None = None
) -> dict[str, Any] | None:
    """One of our votes as an LMArena battle (``None`` for a skip, which has no such form).

    ``row`` holds ``matchup_id``, ``model_a``, ``model_b``, ``outcome``, ``method``, ``mode``,
    ``session``, ``language``, ``voted_at`` and ``turn`` (from 1); ``conversation`` the turns up
    to the voted one as (prompt, answer A, answer B), when text is exported.
    """
    winner = _WINNER_OF.get(row["outcome"])
    if winner is None:
        return None
    judge = row["session"]
    record: dict[str, Any] = {
        "question_id": row["matchup_id"].hex,
        "model_a": row["model_a"],
        "model_b": row["model_b"],
        "winner": winner,
        "judge": f"arena_user_{judge}" if judge else "arena_user",
        "turn": row["turn"],
        "anony": row["mode"] != "named",
        "language": language_name(row["language"]),
        "tstamp": row["voted_at"].timestamp(),
        "method": row["method"],
    }
    if conversation is not None:
        record["conversation_a"] = _messages(conversation, 1)
        record["conversation_b"] = _messages(conversation, 2)
    return record


def _messages(
    conversation: list[tuple[str, str | None, str | None]], side: int
) -> list[dict[str, str]]:
    messages = []
    for turn in conversation:
        messages.append({"role": "user", "content": turn[0]})
        answer = turn[side]
        if answer is not None:
            messages.append({"role": "assistant", "content": answer})
    return messages
