"""The ports of the domain: what the core needs from the outside, as ``typing.Protocol``s.

Adapters (``arena_api.providers``, ``arena_api.db``) implement them; tests implement them with
in-memory fakes. Nothing here imports a framework.
"""

from __future__ import annotations

import random
import uuid
from collections.abc import AsyncIterator, Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from typing import Literal, Protocol

from arena_api.core.agreement import AgreementCounts
from arena_api.core.boards import DEFAULT_BOARD, Board
from arena_api.core.events import SlotResult
from arena_api.core.judging import Judgement
from arena_api.core.lifecycle import ACTIVE, ModelStatus
from arena_api.core.media import ImageRef
from arena_api.core.models import ChatMessage, ModelEntry, ModelWithStatus, Slot
from arena_api.core.records import (
    ConversationRecord,
    MatchupRecord,
    NewRound,
    StoredAnswer,
)
from arena_api.core.views import (
    ActivityBucket,
    ActivityView,
    CategoriesView,
    CostBucket,
    CostView,
    HeadToHeadView,
    ModelMetricsView,
    RatingHistoryView,
    ReasonCountsView,
    StyleControlView,
    SummaryView,
    Votes,
)
from arena_api.core.votes import CastVote, ReviewResult, ReviewVerdict

__all__ = [
    "AnalyticsPort",
    "AutoJudgeQueue",
    "BackfillRounds",
    "ArenaRepository",
    "BoardReads",
    "ChatLink",
    "ChatLinks",
    "ChatVoteResult",
    "ConversationReads",
    "ImageFetcher",
    "ImageReads",
    "LeaderboardPort",
    "LeaderboardRecords",
    "MatchupReads",
    "MatchmakingSnapshot",
    "MatchmakingStats",
    "Matchmaker",
    "ModelProvider",
    "ProviderChunk",
    "ProviderResolver",
    "RatedModelRecord",
    "RoundReads",
    "RoundStore",
    "RoundWrites",
    "StyleCoefficient",
    "StyleSpread",
    "VoteStore",
    "pair_key",
]


# -- providers -----------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProviderChunk:
    """One piece of a provider stream: text, and/or what the provider reported about the answer.

    ``output_tokens`` is the provider's own count of the whole answer (sent once, usually last),
    ``input_tokens`` its count of the prompt it read (the conversation sent);
    ``model_version`` the checkpoint the provider says answered.
    """

    text: str = ""
    output_tokens: int | None = None
    input_tokens: int | None = None
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
    """What the matchmaker knows: each pair's record, ratings and their interval widths.

    ``games`` (non-skip votes) and ``points`` are keyed by ``pair_key``; a missing pair has 0.
    ``points`` is what the key's first model scored in those games (a win 1, a tie 1/2), so
    ``points / games`` is its head-to-head win rate. ``ci_width`` holds the 95% interval width
    (rating points) of each rated model and ``rating`` its rating on the display scale
    (1000 + 400/ln 10 · r); an unrated model is absent from both.
    """

    games: Mapping[tuple[uuid.UUID, uuid.UUID], int] = field(default_factory=dict)
    points: Mapping[tuple[uuid.UUID, uuid.UUID], float] = field(default_factory=dict)
    ci_width: Mapping[uuid.UUID, float] = field(default_factory=dict)
    rating: Mapping[uuid.UUID, float] = field(default_factory=dict)


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


# -- leaderboard and analytics -------------------------------------------------------------------


@dataclass(frozen=True)
class RatedModelRecord:
    """A model's vote record and, once the rating process has run, its ratings.

    Ratings are on the display scale; ``games`` is the rating process's count of the model's
    non-skip votes. Every rating field is ``None`` until that pass has rated the model.
    ``status``: its place in the roster (paused and archived models keep their history).
    """

    model: ModelEntry
    wins: int
    losses: int
    ties: int
    skips: int
    rating: float | None = None
    rating_stderr: float | None = None
    ci_lower: float | None = None
    ci_upper: float | None = None
    component_id: int | None = None
    games: int | None = None
    style_component_id: int | None = None
    style_rating: float | None = None
    style_stderr: float | None = None
    style_ci_lower: float | None = None
    style_ci_upper: float | None = None
    status: ModelStatus = ACTIVE


@dataclass(frozen=True)
class StyleCoefficient:
    """One fitted style coefficient as stored: log-odds per standard deviation of the delta
    (``position``: log-odds outright)."""

    feature: str
    coefficient: float
    computed_at: datetime


@dataclass(frozen=True)
class StyleSpread:
    """Population standard deviation of each raw style delta (slot A minus slot B) over the
    usable non-skip votes (every model's, as the style pass fits them); ``None`` where there
    is no spread.

    Keys are the coefficients' feature names (``verbosity``: output tokens, ``formatting``:
    Markdown density, ``latency_ttft`` and ``latency_duration``: milliseconds).
    """

    votes: int = 0
    std_dev: Mapping[str, float | None] = field(default_factory=dict)


@dataclass(frozen=True)
class LeaderboardRecords:
    """Everything the leaderboard shows, read in one go."""

    models: Sequence[RatedModelRecord]
    coefficients: Sequence[StyleCoefficient] = ()
    spread: StyleSpread = field(default_factory=StyleSpread)


@dataclass(frozen=True)
class RatingPassRecord:
    """What the rating process's latest pass did, and when its latest fit was written."""

    finished_at: datetime
    seconds: float
    votes: int
    votes_excluded: int
    sessions_excluded: int
    last_fit_at: datetime | None
    #: Votes the filters before the fit left out: identity leaks, over the duplicate cap.
    votes_identity_leaks: int = 0
    votes_duplicates: int = 0


class LeaderboardPort(Protocol):
    async def leaderboard(self, board: Board = DEFAULT_BOARD) -> LeaderboardRecords:
        """``board``'s enabled models, sorted rating DESC NULLS LAST, wins DESC, total votes
        DESC, name; the style coefficients and (only when there are coefficients) their spread,
        for a board with style-controlled ratings (``Board.has_style``).

        Must not scan the stored votes: its cost may grow with models, never with votes.
        """
        ...

    async def last_rating_pass(self) -> RatingPassRecord | None:
        """The rating process's latest pass, or None before its first."""
        ...


class AnalyticsPort(Protocol):
    """The insights dashboard's aggregates: model-level only, computed by the store.

    None of them may scan the stored votes or answers on each call. ``category`` cuts a read
    to one slice of prompts (``arena_api.core.categories``); ``None`` reads every vote.
    """

    async def summary(self, votes: Votes = "human", category: str | None = None) -> SummaryView: ...

    async def categories(self, votes: Votes = "human") -> CategoriesView: ...

    async def head_to_head(
        self, votes: Votes = "human", category: str | None = None
    ) -> HeadToHeadView: ...

    async def model_metrics(
        self, votes: Votes = "human", category: str | None = None
    ) -> ModelMetricsView: ...

    async def activity(
        self,
        bucket: ActivityBucket,
        since: datetime | None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> ActivityView:
        """Buckets (UTC) with at least one vote whose start is at or after ``since``; the
        cumulative games count every earlier vote too."""
        ...

    async def cost(
        self, bucket: CostBucket, since: datetime | None, category: str | None = None
    ) -> CostView:
        """Answers' tokens and cost per model, over the UTC days from ``since``'s on (all
        without it), and per ``bucket`` and model; models ordered by cost, dearest first."""
        ...

    async def style_control(
        self, votes: Votes = "human", category: str | None = None
    ) -> StyleControlView:
        """The style pass fits people's votes on every prompt: empty for any other cut."""
        ...

    async def rating_history(
        self,
        since: datetime | None,
        points: int | None = None,
        votes: Votes = "human",
        category: str | None = None,
    ) -> RatingHistoryView:
        """Snapshots with ``computed_at >= since``, ordered by time then model id. With
        ``points``, the refits of at most that many equal spans of the time range: the last
        refit of each span (the newest refit is always kept)."""
        ...

    async def reason_counts(
        self, offered: Sequence[str], votes: Votes = "human", category: str | None = None
    ) -> ReasonCountsView:
        """The reasons given with votes, per winning model; ``offered`` (the configured
        reasons) leads the list of reasons. The one read that reads stored votes: only those
        that carry a reason, through an index over exactly them."""
        ...

    async def judge_agreement(self, category: str | None = None) -> AgreementCounts:
        """The judge against people: per pair of labels, the blind rounds with a person's vote
        and a readable verdict (the latest of each round's), the skips among them, and the
        ratings of the models on both the judge's board and people's (none for a slice)."""
        ...


# -- persistence ---------------------------------------------------------------------------------


class MatchupReads(Protocol):
    """A stored matchup by id: what a vote checks its token against."""

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None: ...


class ConversationReads(Protocol):
    """A stored conversation by id: what a follow-up turn continues."""

    async def get_conversation(self, conversation_id: uuid.UUID) -> ConversationRecord | None: ...


class RoundReads(MatchupReads, ConversationReads, Protocol):
    """Stored rounds, read by id: what the judge, the chat front, suites and reads need."""

    async def get_matchup_content(
        self, matchup_id: uuid.UUID
    ) -> tuple[str, tuple[StoredAnswer, ...]] | None: ...


class RoundWrites(Protocol):
    """The rows a round writes as it runs, and the roster it draws from."""

    async def enabled_models(self) -> list[ModelEntry]: ...

    async def held_back_models(self) -> list[ModelWithStatus]:
        """The paused and archived models: never drawn, read only to tell a request that
        names one why it cannot have it."""
        ...

    async def create_round(self, new: NewRound) -> None: ...

    async def save_response(
        self, matchup_id: uuid.UUID, slot: Slot, model_id: uuid.UUID, result: SlotResult
    ) -> None: ...

    async def add_steer(self, matchup_id: uuid.UUID, instruction: str, at: str) -> None: ...


class RoundStore(MatchupReads, ConversationReads, RoundWrites, MatchmakingStats, Protocol):
    """What ``ArenaService`` needs: a round's rows and roster, the matchmaker's snapshot, the
    conversation a turn continues and the matchup a vote names (votes themselves go through
    ``VoteStore``)."""


class ArenaRepository(RoundReads, RoundWrites, MatchmakingStats, LeaderboardPort, Protocol):
    """The request path's store (``arena_api.db.repository.PostgresRepository``); each service
    asks only for the narrow ports it uses."""


class BoardReads(RoundReads, LeaderboardPort, Protocol):
    """What the read service needs: stored rounds and the leaderboard."""


# -- external chats (OpenAI-compatible chat UIs) -------------------------------------------------


@dataclass(frozen=True)
class ChatLink:
    """Where an external chat stands: the latest votable matchup it was shown, the conversation
    a decisive vote on it continues, and (once voted from the chat) the command that voted."""

    chat_key: str
    session_id: str
    matchup_id: uuid.UUID
    conversation_id: uuid.UUID | None
    vote_message: str | None = None


#: ``recorded``: this command cast the vote. ``sibling``: the same command (its copy sent for the
#: other compare column) cast it. ``voted``: the matchup already had a vote from elsewhere (another
#: command, or the vote API). ``moved``: the chat was shown a newer matchup meanwhile.
ChatVoteResult = Literal["recorded", "sibling", "voted", "moved"]


class ChatLinks(Protocol):
    async def get(self, chat_key: str) -> ChatLink | None:
        """The chat's link, or ``None`` before its first arena round."""
        ...

    async def link(self, link: ChatLink) -> None:
        """Point the chat at a new matchup (forgetting the previous round's vote command)."""
        ...


# -- observation ---------------------------------------------------------------------------------


class VoteStore(Protocol):
    """Where votes are written: each method claims the matchup's one vote (a matchup has at
    most one) and says whether this call got it. Called only by ``services.votes``."""

    async def record(self, vote: CastVote) -> bool:
        """Store ``vote`` unless the matchup has one."""
        ...

    async def record_review(self, verdict: ReviewVerdict) -> ReviewResult:
        """Store an expert reviewer's verdict unless the item has it from them, has all its
        reviews (a skip apart), does not exist, or they do not review its queue."""
        ...

    async def recent_user_votes(self, user_id: str) -> tuple[int, float]:
        """The signed-in person's votes in the last day, and the seconds until the oldest of
        them leaves it."""
        ...

    async def record_command(self, vote: CastVote, chat_key: str, message: str) -> ChatVoteResult:
        """Claim the chat's vote for the command digested as ``message`` and store ``vote``, in
        one atomic step, so two copies of one command (one per compare column) store one vote
        and each learns which of them did."""
        ...

    async def record_judgement(self, judgement: Judgement, vote: CastVote | None) -> bool:
        """Store ``judgement`` and, when it makes a vote, ``vote`` in the same transaction;
        the judgement is stored either way (what it cost was spent)."""
        ...


class BackfillRounds(Protocol):
    """The rounds people voted on that the judge has not read yet (``arena judge backfill``)."""

    async def voted_unjudged(self, limit: int, category: str | None) -> list[uuid.UUID]:
        """Up to ``limit`` blind rounds, newest first (in one slice of prompts, or any), with a
        person's vote other than a skip, both answers, their text kept, and no verdict but
        failed ones."""
        ...

    async def output_tokens_per_reading(self, provider: str, model_id: str) -> float | None:
        """What this judge wrote per reading, on average over its stored verdicts; None before
        its first."""
        ...


class AutoJudgeQueue(Protocol):
    """The shadow matchups the auto-judge has still to judge."""

    async def claim_next(self) -> uuid.UUID | None:
        """Claim the oldest unjudged one for a while (a lease); None when none is free."""
        ...

    async def finish(self, matchup_id: uuid.UUID) -> None:
        """Judged: never claimed again."""
        ...


class RoundObserver(Protocol):
    """What the arena reports as it works (the metrics adapter counts it; tests may too)."""

    def round_started(self, mode: str, plan: str, protocol: str) -> None: ...

    def slot_finished(self, provider: str, model: str, result: SlotResult) -> None: ...

    def vote_recorded(self, outcome: str, method: str, source: str) -> None: ...

    def join_ended(self, outcome: str) -> None: ...

    def control_action(self, action: str, accepted: bool) -> None: ...


class NoObserver:
    """Reports nowhere."""

    def round_started(self, mode: str, plan: str, protocol: str) -> None:
        pass

    def slot_finished(self, provider: str, model: str, result: SlotResult) -> None:
        pass

    def vote_recorded(self, outcome: str, method: str, source: str) -> None:
        pass

    def join_ended(self, outcome: str) -> None:
        pass

    def control_action(self, action: str, accepted: bool) -> None:
        pass


# -- images --------------------------------------------------------------------------------------


class ImageReads(Protocol):
    """Stored images read back (``arena_api.db.media``)."""

    async def load(self, refs: Iterable[ImageRef]) -> dict[str, bytes]:
        """The bytes of each image by its SHA-256 (one deleted meanwhile is left out)."""
        ...

    async def get(self, sha256: str) -> tuple[ImageRef, bytes] | None: ...


class ImageFetcher(Protocol):
    """Fetches an image by ``http(s)`` URL (``ARENA_ALLOW_IMAGE_URLS``)."""

    async def fetch(self, url: str, field: str) -> bytes:
        """The URL's bytes.

        Raises:
            ImageError: ``image_url_refused`` (a scheme or an address not allowed),
                ``image_fetch_failed``, ``image_too_large``.
        """
        ...
