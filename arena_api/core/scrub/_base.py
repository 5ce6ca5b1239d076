"""What every detector yields, and the small checks several of them share."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Literal

Kind = Literal["secret", "email", "card", "ip", "phone"]


@dataclass(frozen=True, slots=True)
class Finding:
    """One span of ``text[start:end]`` of a kind."""

    kind: Kind
    start: int
    end: int


def word_start(text: str, at: int) -> bool:
    """Whether ``at`` begins a word (``\\b`` before it). The detectors' patterns begin with a
    literal and check this instead of opening with ``\\b`` or a look-behind: the regex engine
    then skips to the literal's occurrences, 50 times faster on ordinary text."""
    return at == 0 or not (text[at - 1].isalnum() or text[at - 1] == "_")


def lines_around(text: str, positions: list[int]) -> list[tuple[int, int]]:
    """The distinct lines (start, end) holding each of ``positions``, in order."""
    spans: list[tuple[int, int]] = []
    for at in positions:
        if spans and at < spans[-1][1]:
            continue
        start = text.rfind("\n", 0, at) + 1
        end = text.find("\n", at)
        spans.append((start, len(text) if end < 0 else end))
    return spans
