"""In-memory fakes of the narrow ports the services depend on (``arena_api.core.ports``), and a
clock that moves only when told to: the fast tier's doubles, in the manner of cosmicpython's
``FakeRepository``. None of them inherits from its port; each is checked against it by mypy
where a test passes it in.

* ``FakeClock``: ``Clock`` (``monotonic``, ``now``) plus ``time`` for the token service.
* ``FakeRoundStore``: ``RoundStore`` (a round's rows, the roster, the matchmaking snapshot, the
  matchup and conversation reads), in dicts and lists.
* ``FakeBoardReads``: ``BoardReads`` (stored rounds and the leaderboard), from fixed records.
* ``ScriptedProvider`` and ``FakeProviders``: ``ModelProvider`` and ``ProviderResolver`` with
  scripted answers; a ``hold`` event keeps every slot after its first piece until it is set.
* ``RecordingObserver``: ``RoundObserver`` that keeps every call.

The vote store's fake is ``tests.fakes.votes.FakeVoteStore``.
"""

from __future__ import annotations

import asyncio
import uuid
from collections.abc import AsyncIterator, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import UTC, datetime, timedelta

from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.errors import ProviderError, ProviderUnavailable
from arena_api.core.events import SlotResult
from arena_api.core.models import ChatMessage, ModelEntry, ModelWithStatus, Slot
from arena_api.core.ports import (
    LeaderboardRecords,
    MatchmakingSnapshot,
    ModelProvider,
    ProviderChunk,
    RatingPassRecord,
)
from arena_api.core.records import (
    ConversationRecord,
    MatchupRecord,
    NewRound,
    StoredAnswer,
)

__all__ = [
    "FakeBoardReads",
    "FakeClock",
    "FakeProviders",
    "FakeRoundStore",
    "RecordingObserver",
    "ScriptedProvider",
    "model",
]


def model(name: str, provider: str = "fake", number: int | None = None) -> ModelEntry:
    """A roster entry named ``name`` (its provider model id too), with a stable id."""
    return ModelEntry(
        id=uuid.UUID(int=number if number is not None else sum(map(ord, name))),
        display_name=name.title(),
        provider=provider,
        provider_model_id=name,
    )


class FakeClock:
    """Stands still until ``advance``d; ``now`` starts at ``start`` (UTC)."""

    def __init__(self, start: datetime = datetime(2026, 1, 1, 12, tzinfo=UTC)) -> None:
        self._start = start
        self.elapsed = 0.0

    def monotonic(self) -> float:
        return 1_000.0 + self.elapsed

    def now(self) -> datetime:
        return self._start + timedelta(seconds=self.elapsed)

    def time(self) -> float:
        """Unix seconds (``MatchupTokenService``'s and the session signer's clock)."""
        return self.now().timestamp()

    def advance(self, seconds: float) -> None:
        self.elapsed += seconds


@dataclass
class FakeRoundStore:
    """``RoundStore`` in memory: ``create_round`` stores the matchup a later vote reads."""

    models: list[ModelEntry] = field(default_factory=list)
    #: The paused and archived models (never drawn).
    held_back: list[ModelWithStatus] = field(default_factory=list)
    matchups: dict[uuid.UUID, MatchupRecord] = field(default_factory=dict)
    conversations: dict[uuid.UUID, ConversationRecord] = field(default_factory=dict)
    rounds: list[NewRound] = field(default_factory=list)
    responses: dict[tuple[uuid.UUID, Slot], tuple[uuid.UUID, SlotResult]] = field(
        default_factory=dict
    )
    steers: list[tuple[uuid.UUID, str, str]] = field(default_factory=list)
    stats: MatchmakingSnapshot = field(default_factory=MatchmakingSnapshot)
    #: How often the roster was read (the service caches it).
    roster_reads: int = 0

    async def enabled_models(self) -> list[ModelEntry]:
        self.roster_reads += 1
        return list(self.models)

    async def held_back_models(self) -> list[ModelWithStatus]:
        return list(self.held_back)

    async def snapshot(self) -> MatchmakingSnapshot:
        return self.stats

    async def create_round(self, new: NewRound) -> None:
        self.rounds.append(new)
        self.matchups[new.matchup_id] = MatchupRecord(
            id=new.matchup_id,
            conversation_id=new.conversation_id,
            turn_index=new.turn_index,
            mode=new.mode,
            token_hash=new.token_hash,
            slot_a=new.slot_a,
            slot_b=new.slot_b,
            vote=None,
        )

    async def save_response(
        self, matchup_id: uuid.UUID, slot: Slot, model_id: uuid.UUID, result: SlotResult
    ) -> None:
        self.responses[(matchup_id, slot)] = (model_id, result)

    async def add_steer(self, matchup_id: uuid.UUID, instruction: str, at: str) -> None:
        self.steers.append((matchup_id, instruction, at))

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None:
        return self.matchups.get(matchup_id)

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None:
        return self.conversations.get(conversation_id)


@dataclass
class FakeBoardReads:
    """``BoardReads`` from fixed records; ``boards`` keeps every board asked for."""

    records: LeaderboardRecords = field(default_factory=lambda: LeaderboardRecords(models=()))
    last_pass: RatingPassRecord | None = None
    matchups: dict[uuid.UUID, MatchupRecord] = field(default_factory=dict)
    contents: dict[uuid.UUID, tuple[str, tuple[StoredAnswer, ...]]] = field(default_factory=dict)
    conversations: dict[uuid.UUID, ConversationRecord] = field(default_factory=dict)
    boards: list[Board] = field(default_factory=list)

    async def leaderboard(self, board: Board = DEFAULT_BOARD) -> LeaderboardRecords:
        self.boards.append(board)
        return self.records

    async def last_rating_pass(self) -> RatingPassRecord | None:
        return self.last_pass

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None:
        return self.matchups.get(matchup_id)

    async def get_matchup_content(
        self, matchup_id: uuid.UUID
    ) -> tuple[str, tuple[StoredAnswer, ...]] | None:
        return self.contents.get(matchup_id)

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None:
        return self.conversations.get(conversation_id)


@dataclass
class ScriptedProvider:
    """Streams each model's script (``scripts`` by provider model id, else ``default``), then
    raises its ``failures`` entry if it has one. Every call's messages are kept in ``calls``.

    With ``hold`` set up, each stream stops after its first piece until the event is set: a
    round is then running, at a known point, for as long as a test needs.
    """

    name: str = "fake"
    default: Sequence[str] = ("Hello", " world")
    scripts: Mapping[str, Sequence[str]] = field(default_factory=dict)
    failures: Mapping[str, ProviderError] = field(default_factory=dict)
    hold: asyncio.Event | None = None
    calls: list[tuple[str, tuple[ChatMessage, ...]]] = field(default_factory=list)

    async def stream(
        self, model: ModelEntry, messages: Sequence[ChatMessage]
    ) -> AsyncIterator[ProviderChunk]:
        self.calls.append((model.provider_model_id, tuple(messages)))
        script = self.scripts.get(model.provider_model_id, self.default)
        for index, piece in enumerate(script):
            if index == 1 and self.hold is not None:
                await self.hold.wait()
            yield ProviderChunk(text=piece)
        failure = self.failures.get(model.provider_model_id)
        if failure is not None:
            raise failure


class FakeProviders:
    """``ProviderResolver`` over the providers given, by name."""

    def __init__(self, *providers: ModelProvider) -> None:
        self._by_name = {p.name: p for p in providers}

    def resolve(self, provider: str) -> ModelProvider:
        try:
            return self._by_name[provider]
        except KeyError:
            raise ProviderUnavailable(f"provider {provider!r} is not configured") from None

    def names(self) -> frozenset[str]:
        return frozenset(self._by_name)


class RecordingObserver:
    """``RoundObserver`` that keeps each report as a tuple (method name first)."""

    def __init__(self) -> None:
        self.calls: list[tuple[object, ...]] = []

    def of(self, kind: str) -> list[tuple[object, ...]]:
        """The reports of one kind, without their name."""
        return [call[1:] for call in self.calls if call[0] == kind]

    def round_started(self, mode: str, plan: str, protocol: str) -> None:
        self.calls.append(("round_started", mode, plan, protocol))

    def slot_finished(self, provider: str, model: str, result: SlotResult) -> None:
        self.calls.append(("slot_finished", provider, model, result.error))

    def vote_recorded(self, outcome: str, method: str, source: str) -> None:
        self.calls.append(("vote_recorded", outcome, method, source))

    def join_ended(self, outcome: str) -> None:
        self.calls.append(("join_ended", outcome))

    def control_action(self, action: str, accepted: bool) -> None:
        self.calls.append(("control_action", action, accepted))
