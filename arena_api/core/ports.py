"""The ports of the domain: what the core needs from the outside, as ``typing.Protocol``s.

Adapters (``arena_api.providers``, ``arena_api.db``) implement them; tests implement them with
in-memory fakes. Nothing here imports a framework.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Protocol

from arena_api.core.events import SlotResult
from arena_api.core.models import ChatMessage, ModelEntry, Slot
from arena_api.core.records import (
    ConversationRecord,
    LeaderboardRow,
    MatchupRecord,
    NewRound,
    Vote,
)

__all__ = [
    "ArenaRepository",
    "MatchmakingSnapshot",
    "MatchmakingStats",
    "Matchmaker",
    "ModelProvider",
    "ProviderChunk",
    "ProviderResolver",
    "pair_key",
]


# -- providers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProviderChunk:
    """One piece of a provider stream: text, and/or what the provider reported about the answer.

    ``output_tokens`` is the provider's own count of the whole answer (sent once, usually last);
    ``model_version`` the checkpoint the provider says answered.
    """

    text: str = ""
    output_tokens: int | None = None
    model_version: str | None = None


class ModelProvider(Protocol):
    """A model endpoint that streams an answer to a conversation.

    ``stream`` raises ``arena_api.core.errors.ProviderError`` subclasses only; their messages
    must never name the model or the provider (they reach blind clients as ``slot_error``).
    Cancelling the iteration (``aclose`` or task cancellation) must release the connection.
    """

    name: str

    def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]: ...


class ProviderResolver(Protocol):
    def resolve(self, provider: str) -> ModelProvider:
        """The provider registered under ``provider``.

        Raises:
            ProviderUnavailable: no such provider is configured.
        """
        ...

    def names(self) -> frozenset[str]:
        """Names of the configured providers."""
        ...


# -- matchmaking ---------------------------------------------------------------------------------


def pair_key(a: uuid.UUID, b: uuid.UUID) -> tuple[uuid.UUID, uuid.UUID]:
    """The canonical (unordered) key of a pair: the smaller id first."""
    return (a, b) if a.bytes <= b.bytes else (b, a)


@dataclass(frozen=True)
class MatchmakingSnapshot:
    """What the matchmaker knows: games per canonical pair and rating-interval widths.

    ``games`` is keyed by ``pair_key``; a missing pair has 0 games. ``ci_width`` holds the 95%
    interval width (rating points) of each rated model; an unrated model is absent.
    """

    games: Mapping[tuple[uuid.UUID, uuid.UUID], int] = field(default_factory=dict)
    ci_width: Mapping[uuid.UUID, float] = field(default_factory=dict)


class MatchmakingStats(Protocol):
    async def snapshot(self) -> MatchmakingSnapshot:
        """A recent snapshot; must not scan the stored votes on every call."""
        ...


class Matchmaker(Protocol):
    def pick_pair(
        self, models: Sequence[ModelEntry], stats: MatchmakingSnapshot, rng: random.Random
    ) -> tuple[ModelEntry, ModelEntry]:
        """Two distinct models. Slot order is the caller's to randomise.

        Raises:
            RoundConfigError: fewer than two models are available.
        """
        ...

    def pick_challenger(
        self,
        models: Sequence[ModelEntry],
        incumbent: ModelEntry,
        stats: MatchmakingSnapshot,
        rng: random.Random,
    ) -> ModelEntry:
        """A model other than ``incumbent`` to run beside it in a shadow round.

        Raises:
            RoundConfigError: no model other than the incumbent is available
                (code ``shadow_challenger_missing``).
        """
        ...


# -- persistence ---------------------------------------------------------------------------------


class ArenaRepository(MatchmakingStats, Protocol):
    """The request path's store (``arena_api.db.repository.PostgresRepository``)."""

    async def enabled_models(self) -> list[ModelEntry]: ...

    async def create_round(self, new: NewRound) -> None: ...

    async def save_response(
        self, matchup_id: uuid.UUID, slot: Slot, model_id: uuid.UUID, result: SlotResult
    ) -> None: ...

    async def add_steer(self, matchup_id: uuid.UUID, instruction: str, at: str) -> None: ...

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None: ...

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None: ...

    async def record_vote(
        self,
        matchup_id: uuid.UUID,
        vote: Vote,
        winner_model_id: uuid.UUID | None,
        session_id: str | None,
        selected_slot: Slot | None,
    ) -> bool: ...

    async def leaderboard(self) -> list[LeaderboardRow]: ...
