"""Reading a judge model's verdict, however it chose to write it.

Judges are asked for ``{"reasoning": "...", "verdict": "A" | "B" | "tie" | "both_bad"}`` and
answer in every shape a language model finds: the JSON in a code fence, with prose around it,
with single quotes or trailing commas, keys in another case or under another name
(``winner``, ``decision``, ``choice``, ...), values such as ``"Answer A"``, ``"[[B]]"``,
``"Assistant 1"``, ``"draw"`` or ``"neither"``; or no JSON at all (``Verdict: **B**``,
``Final answer: [[A]]``). ``parse_verdict`` tries, in order:

1. every JSON object in the text (fenced or bare, last one first), loosely repaired, for a
   verdict-like key;
2. an explicit statement (``verdict:``, ``winner is``, ``final answer:``, ``[[X]]``), the last
   one in the text winning (judges often think aloud before deciding).

What it cannot read is ``None``: an ``unparseable`` outcome, never an exception and never a
guess. Pure.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from typing import Any, Literal

__all__ = ["Choice", "ParsedVerdict", "normalise_choice", "parse_verdict"]

Choice = Literal["A", "B", "tie", "both_bad"]

_VERDICT_KEYS = (
    "verdict",
    "winner",
    "decision",
    "choice",
    "result",
    "judgment",
    "judgement",
    "preferred",
    "preference",
    "better",
    "better_answer",
    "best",
    "final_verdict",
    "final_answer",
    "answer",
    "outcome",
)
_REASON_KEYS = ("reasoning", "reason", "rationale", "explanation", "analysis", "justification")

_A = {"a", "1", "first", "left", "one", "answer a", "response a", "assistant a", "model a"}
_B = {"b", "2", "second", "right", "two", "answer b", "response b", "assistant b", "model b"}
_TIE = {
    "tie",
    "draw",
    "equal",
    "equally good",
    "both good",
    "both are good",
    "both",
    "same",
    "even",
    "c",
    "neither is better",
    "no preference",
    "tie both good",
}
_BOTH_BAD = {
    "both bad",
    "both are bad",
    "both poor",
    "both wrong",
    "neither",
    "neither is good",
    "none",
    "both_bad",
    "tie both bad",
}

_FENCE = re.compile(r"```(?:json|JSON)?\s*(.*?)```", re.S)
_TRAILING_COMMA = re.compile(r",\s*([}\]])")
_STATEMENT = re.compile(
    r"(?:verdict|winner|decision|final answer|final verdict|better answer|my choice|i choose|"
    r"i pick|i prefer|preferred answer)\s*(?:is|:|=|-)?\s*\**\s*(?:\[\[)?\s*"
    r"(answer [ab12]|response [ab12]|assistant [ab12]|model [ab12]|[ab12]\b|tie|draw|"
    r"both (?:are )?(?:good|bad)|both_bad|neither)",
    re.I,
)
_BRACKETED = re.compile(r"\[\[\s*(a|b|c|d|tie|both_bad|both bad)\s*\]\]", re.I)


@dataclass(frozen=True)
class ParsedVerdict:
    choice: Choice | None
    reasoning: str


def normalise_choice(raw: object) -> Choice | None:
    """``"Answer A"``, ``"[[b]]"``, ``"Tie"``, ``"both bad"``, ``1`` ... as a choice, or None."""
    if isinstance(raw, bool) or not isinstance(raw, str | int):
        return None
    text = re.sub(r"[\[\]*`'\".!()]", " ", str(raw)).strip().lower()
    text = re.sub(r"[\s_-]+", " ", text).strip()
    text = re.sub(r"^(?:the )?(?:verdict|winner|choice)\s*(?:is|:)?\s*", "", text)
    text = re.sub(r"\s*(?:is better|wins|is the winner|is preferred)$", "", text)
    if text in _A:
        return "A"
    if text in _B:
        return "B"
    if text in _BOTH_BAD or text.replace(" ", "_") == "both_bad":
        return "both_bad"
    if text in _TIE:
        return "tie"
    return None


def _objects(text: str) -> list[str]:
    """Every balanced ``{...}`` span of ``text`` (strings respected), in order."""
    spans, depth, start, quote, escaped = [], 0, 0, "", False
    for index, char in enumerate(text):
        if quote:
            if escaped:
                escaped = False
            elif char == "\\":
                escaped = True
            elif char == quote:
                quote = ""
        elif char == '"':
            quote = char
        elif char == "{":
            if depth == 0:
                start = index
            depth += 1
        elif char == "}" and depth:
            depth -= 1
            if depth == 0:
                spans.append(text[start : index + 1])
    return spans


def _load(candidate: str) -> dict[str, Any] | None:
    for attempt in (
        candidate,
        _TRAILING_COMMA.sub(r"\1", candidate),
        _TRAILING_COMMA.sub(r"\1", candidate.replace("'", '"')),
    ):
        try:
            value = json.loads(attempt)
        except ValueError:
            continue
        return value if isinstance(value, dict) else None
    return None


def _from_object(data: dict[str, Any]) -> ParsedVerdict | None:
    keys = {re.sub(r"[\s-]+", "_", str(k).strip().lower()): v for k, v in data.items()}
    reasoning = next((str(keys[k]) for k in _REASON_KEYS if isinstance(keys.get(k), str)), "")
    for key in _VERDICT_KEYS:
        if key in keys:
            choice = normalise_choice(keys[key])
            if choice is not None:
                return ParsedVerdict(choice, reasoning)
    return None


def parse_verdict(text: str) -> ParsedVerdict:
    """The judge's choice and its reasoning; ``choice`` is None when it cannot be read."""
    candidates = [body for body in _FENCE.findall(text)] + _objects(text)
    for candidate in reversed(candidates):
        for span in reversed(_objects(candidate) or [candidate]):
            data = _load(span)
            parsed = _from_object(data) if data is not None else None
            if parsed is not None:
                return parsed
    # No readable JSON: the last explicit statement in the text decides.
    positions = {
        m.start(): m.group(1)
        for pattern in (_STATEMENT, _BRACKETED)
        for m in pattern.finditer(text)
    }
    for _, raw in sorted(positions.items(), reverse=True):
        choice = normalise_choice(raw)
        if choice is not None:
            return ParsedVerdict(choice, text.strip())
    return ParsedVerdict(None, text.strip())
