"""What the repositories hand the service: plain, immutable records of stored rounds."""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Literal

from arena_api.core.categories import UNDETERMINED
from arena_api.core.errors import VoteError
from arena_api.core.media import ChatImage, ImageRef
from arena_api.core.models import ModelEntry, Slot
from arena_api.core.sides import DECISIVE_VOTES, VOTES, Vote, winner_slot

__all__ = [
    "DECISIVE_VOTES",
    "VOTES",
    "ConversationRecord",
    "MatchupRecord",
    "NewRound",
    "StoredAnswer",
    "TurnRecord",
    "Vote",
    "VoteOutcome",
    "check_votable",
    "vote_outcome",
    "winner_slot",
]

# ``Vote``, ``VOTES``, ``DECISIVE_VOTES`` and ``winner_slot`` are the kernel's
# (``arena_api.core.sides``), re-exported for the records' users.
StoredMode = Literal["blind", "shadow", "named"]


@dataclass(frozen=True)
class NewRound:
    """Everything inserted, in one transaction, when an engaged round starts."""

    matchup_id: uuid.UUID
    conversation_id: uuid.UUID
    new_conversation: bool
    session_id: str | None
    turn_index: int
    parent_response_id: uuid.UUID | None
    prompt: str
    slot_a: ModelEntry
    slot_b: ModelEntry
    token_hash: str
    harness_version: str
    mode: StoredMode
    #: What the prompt is about (``core.categories``), its language and normalised key.
    categories: tuple[str, ...] = ()
    language: str = UNDETERMINED
    prompt_key: str = ""
    #: The replica running it, when it is one of several (``REDIS_URL``).
    replica: str | None = None
    #: The prompt's images, stored with the turn (``core.media``).
    images: tuple[ChatImage, ...] = ()


@dataclass(frozen=True)
class StoredAnswer:
    slot: Slot
    response_id: uuid.UUID
    content: str
    error: str | None


@dataclass(frozen=True)
class TurnRecord:
    turn_index: int
    matchup_id: uuid.UUID
    prompt: str
    mode: StoredMode
    vote: Vote | None
    answers: tuple[StoredAnswer, ...]
    slot_a: ModelEntry
    slot_b: ModelEntry
    #: The prompt's images (none once text retention cleared them).
    images: tuple[ImageRef, ...] = ()

    def answer(self, slot: Slot) -> StoredAnswer | None:
        return next((a for a in self.answers if a.slot == slot), None)


@dataclass(frozen=True)
class ConversationRecord:
    id: uuid.UUID
    session_id: str | None
    turns: tuple[TurnRecord, ...]


@dataclass(frozen=True)
class MatchupRecord:
    id: uuid.UUID
    conversation_id: uuid.UUID | None
    turn_index: int | None
    mode: StoredMode
    token_hash: str
    slot_a: ModelEntry
    slot_b: ModelEntry
    vote: Vote | None


@dataclass(frozen=True)
class VoteOutcome:
    """What a vote on a matchup records: the slot it picked and that slot's model."""

    selected_slot: Slot | None
    winner_model_id: uuid.UUID | None


def check_votable(matchup: MatchupRecord) -> None:
    """Raises:
    VoteError: 403 ``not_votable`` for a shadow matchup (its challenger was never shown).
    """
    if matchup.mode == "shadow":
        raise VoteError("Shadow matchups are not votable", status=403, code="not_votable")


def vote_outcome(matchup: MatchupRecord, vote: Vote) -> VoteOutcome:
    """The winner of ``vote`` on ``matchup``, derived here and never taken from a client."""
    slot = winner_slot(vote)
    winner = {"A": matchup.slot_a, "B": matchup.slot_b}[slot].id if slot else None
    return VoteOutcome(selected_slot=slot, winner_model_id=winner)
