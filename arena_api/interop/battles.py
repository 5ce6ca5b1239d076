"""A vote from another arena, in our terms: what every reader yields and the importer writes.

A ``Battle`` is one vote on two named models over a conversation of one or more exchanges
(prompt, then each model's answer). The vote is in our labels (``arena_api.core.sides``), slot A
being the source's first model. ``source_id`` names the record in its system; with ``source`` it
is the row's import key, so importing the same file twice adds nothing. A record a reader cannot
use becomes a ``BadRecord`` saying where it is (a line, an index, an id) and what is wrong.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import Any, Literal

from arena_api.core.populations import Method
from arena_api.core.sides import Vote

__all__ = ["SOURCES", "BadRecord", "Battle", "Exchange", "Source", "VotedRound"]

Source = Literal["lmarena", "openwebui", "omniarena"]
SOURCES: tuple[Source, ...] = ("lmarena", "openwebui", "omniarena")

#: The most exchanges one imported conversation may hold (a sanity bound on hostile files).
MAX_EXCHANGES = 200


@dataclass(frozen=True)
class Exchange:
    """One turn: the prompt and each model's answer (``None``: the source has no text)."""

    prompt: str
    answer_a: str | None = None
    answer_b: str | None = None


@dataclass(frozen=True)
class Battle:
    """One imported vote on ``model_a`` (slot A, shown left) against ``model_b``.

    ``exchanges`` is empty when the source carries no text; otherwise the vote is on the last
    exchange and the earlier ones are the conversation that led to it.
    """

    source: Source
    source_id: str
    model_a: str
    model_b: str
    vote: Vote
    voted_at: datetime
    method: Method = "human"
    named: bool = False
    #: Who voted, as the source names them (kept apart per source, never shown).
    voter: str | None = None
    #: ISO 639-1 code of the prompt's language, when the source says.
    language: str | None = None
    exchanges: tuple[Exchange, ...] = ()
    reasons: tuple[str, ...] = field(default=())

    @property
    def turns(self) -> int:
        """The conversation's length in turns (1 when the source has no text)."""
        return max(len(self.exchanges), 1)


@dataclass(frozen=True)
class BadRecord:
    """A record that was not imported: ``where`` it is in the input and ``why``."""

    where: str
    why: str

    def __str__(self) -> str:
        return f"{self.where}: {self.why}"


@dataclass(frozen=True)
class VotedRound:
    """One of our votes on its way out to another format: the vote's row (``matchup_id``,
    ``model_a``, ``model_b``, ``outcome``, ``method``, ``mode``, ``session``, ``language``,
    ``voted_at``, ``turn``) and, with text, the conversation up to it as (prompt, answer A,
    answer B) per turn."""

    row: dict[str, Any]
    conversation: list[tuple[str, str | None, str | None]] | None
