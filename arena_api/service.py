"""ArenaService: the one application service that both the HTTP routes and the Reflex UI call.

It owns a round from start to persistence: plan, conversation, pair, token, the matchup rows,
ArenaCore's generation, the responses. A round runs in a task of its own (``_Round.pump``) that
outlives the caller's connection, so a client that disconnects mid-stream still gets both answers
recorded; the caller only subscribes to the public events.
"""

from __future__ import annotations

import asyncio
import logging
import math
import random
import secrets
import time
import uuid
from collections.abc import AsyncGenerator, Iterable, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime

from arena_api.core.arena import ArenaCore, SlotRun
from arena_api.core.control import LiveMatchup, MatchupRegistry
from arena_api.core.conversation import is_continuable, next_turn
from arena_api.core.errors import (
    ConversationError,
    InvalidRequest,
    NotFound,
    ProviderUnavailable,
    RoundConfigError,
    VoteError,
)
from arena_api.core.events import (
    InternalEvent,
    InternalMatchupDone,
    InternalSlotDone,
    InternalSlotError,
    InternalSteered,
    InternalToken,
    MatchupStarted,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.core.ids import new_id
from arena_api.core.join import (
    FollowerClaim,
    JoinBroker,
    JoinError,
    JoinHandshake,
    SlotChannel,
)
from arena_api.core.models import ChatMessage, ModelEntry
from arena_api.core.plans import Plan, is_opted_in, resolve_default_model, resolve_plan
from arena_api.core.ports import (
    AnalyticsPort,
    ArenaRepository,
    Matchmaker,
    ModelProvider,
    ProviderResolver,
    StyleCoefficient,
    StyleSpread,
)
from arena_api.core.records import (
    DECISIVE_VOTES,
    ConversationRecord,
    MatchupRecord,
    NewRound,
    TurnRecord,
    winner_slot,
)
from arena_api.core.requests import ChatRequest, VoteRequest
from arena_api.core.tokens import MatchupTokenService, token_hash
from arena_api.core.views import (
    ActivityBucket,
    ActivityView,
    AnswerView,
    ComponentGroup,
    Components,
    ConfidenceInterval,
    ConversationView,
    HeadToHeadView,
    LeaderboardEntry,
    LeaderboardView,
    MatchupView,
    ModelIdentity,
    ModelMetricsView,
    RatingHistoryView,
    RevealedModels,
    SharedMatchupView,
    StyleControl,
    StyleControlView,
    StyleEffect,
    StyleUnit,
    SummaryView,
    TurnView,
    VoteReveal,
)

__all__ = ["ArenaService", "RoundPolicy", "RoundStream"]

_log = logging.getLogger(__name__)
_ROSTER_TTL_S = 2.0

#: Rating points per unit of log-odds: the display scale ``1000 + (400 / ln 10) * r`` of the
#: rating process, through which style coefficients are restated in rating points too.
DISPLAY_SCALE = 400 / math.log(10)
#: The style features in the order the rating process fits them; later additions sort last.
STYLE_FEATURE_ORDER = ("position", "verbosity", "formatting", "latency_ttft", "latency_duration")
#: Covariates that are a constant rather than a per-vote delta: their coefficient is absolute.
ABSOLUTE_STYLE_FEATURES = frozenset({"position"})
# A thinned rating history keeps at most this many refits (``rating_history(points=...)``).
MAX_HISTORY_POINTS = 10_000
#: A readable amount of each raw delta (tokens, Markdown density 0..1, milliseconds).
STYLE_UNITS: dict[str, tuple[float, str]] = {
    "verbosity": (100.0, "100 output tokens"),
    "formatting": (0.1, "0.1 markdown density"),
    "latency_ttft": (100.0, "100 ms of TTFT"),
    "latency_duration": (1000.0, "second of streaming"),
}


@dataclass(frozen=True)
class RoundPolicy:
    """The settings that shape rounds (a slice of ``Settings``, so the core stays pure)."""

    trigger: str = "always"
    exposure: str = "blind"
    sample_rate: float = 0.0
    default_model: str | None = None
    harness_version: str = "v1"


@dataclass
class RoundStream:
    """A started round: its first event (also the ``x-arena-matchup`` header) and the stream.

    ``events`` yields ``matchup_started`` first and ends after ``matchup_done`` or ``run_error``.
    Closing it detaches the caller; the round itself runs on and is persisted.
    """

    started: MatchupStarted
    events: AsyncGenerator[PublicEvent, None]


@dataclass
class _Round:
    """One running round: its slots, its control handle and the channels it streams into."""

    matchup_id: uuid.UUID
    started: MatchupStarted
    runs: tuple[SlotRun, ...]
    persisted: bool
    live: LiveMatchup
    channels: list[SlotChannel]

    def publish(self, event: PublicEvent) -> None:
        for channel in self.channels:
            channel.publish(event)

    def fail(self, event: PublicEvent) -> None:
        for channel in self.channels:
            channel.fail(event)


class ArenaService:
    def __init__(
        self,
        *,
        repository: ArenaRepository,
        providers: ProviderResolver,
        matchmaker: Matchmaker,
        core: ArenaCore,
        tokens: MatchupTokenService,
        policy: RoundPolicy,
        join: JoinBroker | None = None,
        analytics: AnalyticsPort | None = None,
        max_queued_events: int = 4096,
        rng: random.Random | None = None,
    ) -> None:
        self._repo = repository
        self._analytics = analytics
        self._providers = providers
        self._matchmaker = matchmaker
        self._core = core
        self._tokens = tokens
        self._policy = policy
        self._rng = rng or random.Random()
        self._roster: tuple[float, list[ModelEntry]] | None = None
        self._default_model: ModelEntry | None = None
        self._join = join or JoinBroker(window_s=0, max_pending=1)
        self._max_queued = max_queued_events
        self._tasks: set[asyncio.Task[None]] = set()
        self.registry = MatchupRegistry()

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Resolve ``ARENA_DEFAULT_MODEL`` against the enabled roster (at boot, once).

        Raises:
            RoundConfigError: it is required and matches no enabled model (or several).
        """
        if self._policy.default_model is not None:
            roster = await self._playable_roster(refresh=True)
            self._default_model = resolve_default_model(self._policy.default_model, roster)

    async def close(self, grace_s: float = 10.0) -> None:
        """Let running rounds finish (bounded by ``grace_s``), then cancel the rest."""
        if self._tasks:
            _, pending = await asyncio.wait(self._tasks, timeout=grace_s)
            for task in pending:
                task.cancel()
            await asyncio.gather(*pending, return_exceptions=True)

    @property
    def running_rounds(self) -> int:
        return len(self.registry)

    @property
    def join_broker(self) -> JoinBroker:
        return self._join

    # -- roster ----------------------------------------------------------------------------------

    async def roster(self) -> list[ModelEntry]:
        """The enabled models; the roster is public, only a matchup's draw is blind."""
        return await self._repo.enabled_models()

    async def _playable_roster(self, *, refresh: bool = False) -> list[ModelEntry]:
        """Enabled models whose provider is configured (others cannot answer)."""
        loop = asyncio.get_running_loop()
        if refresh or self._roster is None or loop.time() - self._roster[0] > _ROSTER_TTL_S:
            names = self._providers.names()
            models = [m for m in await self._repo.enabled_models() if m.provider in names]
            self._roster = (loop.time(), models)
        return self._roster[1]

    # -- rounds ----------------------------------------------------------------------------------

    async def start_round(self, request: ChatRequest, *, x_arena: str | None = None) -> RoundStream:
        """Plan, validate and persist a round's start, then run it in the background.

        With a ``joinKey`` (and joining enabled) the request may instead become one half of a
        matchup shared with a sibling request (see ``arena_api.core.join``). Every failure before
        streaming raises an ``ArenaError`` and leaves nothing stored.
        """
        requested_at_ms = time.time_ns() // 1_000_000
        plan = resolve_plan(
            trigger=self._policy.trigger,
            exposure=self._policy.exposure,
            sample_rate=self._policy.sample_rate,
            opted_in=is_opted_in(request.arena, x_arena),
            rng=self._rng,
        )
        # Joining splits the two slots of a matchup; single and shadow rounds have one visible
        # slot, so a joinKey on them is ignored and each sibling is served on its own.
        if request.join_key is None or not self._join.enabled or plan != "matchup":
            round_ = await self._open_round(request, plan, requested_at_ms)
            return self._stream(round_, round_.channels[0], round_.started)
        if request.session_id is None:
            raise JoinError(
                "joinKey requires a sessionId", status=400, code="join_requires_session"
            )
        scope = self._join.scope(
            request.session_id,
            str(request.conversation_id) if request.conversation_id else None,
            request.prompt,
            request.join_key,
        )
        claim = self._join.claim(scope)
        if isinstance(claim, FollowerClaim):
            handshake = await claim.handshake()
            return RoundStream(handshake.started, handshake.channel.events(handshake.started))
        try:
            round_ = await self._open_round(request, plan, requested_at_ms)
        except BaseException as exc:
            claim.fail(exc)
            raise
        if not await claim.wait_for_follower():  # no sibling in the window: the default shape
            return self._stream(round_, round_.channels[0], round_.started)
        follower = round_.channels[0].split("B", self._max_queued)
        round_.channels.append(follower)
        claim.publish(JoinHandshake(round_.started.model_copy(update={"slots": ("B",)}), follower))
        leader_started = round_.started.model_copy(update={"slots": ("A",)})
        return self._stream(round_, round_.channels[0], leader_started)

    def _stream(self, round_: _Round, channel: SlotChannel, started: MatchupStarted) -> RoundStream:
        return RoundStream(started, channel.events(started))

    async def _open_round(
        self, request: ChatRequest, plan: Plan, requested_at_ms: int | None = None
    ) -> _Round:
        """Everything before streaming: context, pair, token, rows; then start the pump."""
        conversation: ConversationRecord | None = None
        if request.conversation_id is not None:
            conversation = await self._repo.get_conversation(request.conversation_id)
            if conversation is None:
                raise ConversationError(
                    "Conversation not found", status=404, code="conversation_not_found"
                )
        turn = (
            next_turn(conversation, request.session_id, requested_at_ms=requested_at_ms)
            if conversation
            else None
        )
        history = turn.history if turn else ()
        messages = (*history, ChatMessage(role="user", content=request.prompt))
        roster = await self._playable_roster()

        if plan == "single":
            model = self._require_default(roster)
            runs: tuple[SlotRun, ...] = (SlotRun("A", model, self._provider_for(model)),)
            started = MatchupStarted(
                matchup_id=str(new_id()), slots=("A",), mode="single", votable=False
            )
            return self._launch(started, runs, messages, persisted=False, token=None)

        if plan == "shadow":
            incumbent = self._require_default(roster)
            stats = await self._repo.snapshot()
            challenger = self._matchmaker.pick_challenger(roster, incumbent, stats, self._rng)
            slot_a, slot_b = incumbent, challenger
        else:
            stats = await self._repo.snapshot()
            first, second = self._matchmaker.pick_pair(roster, stats, self._rng)
            slot_a, slot_b = (first, second) if self._rng.random() < 0.5 else (second, first)
        runs = (
            SlotRun("A", slot_a, self._provider_for(slot_a)),
            SlotRun("B", slot_b, self._provider_for(slot_b)),
        )

        matchup_id = new_id()
        conversation_id = conversation.id if conversation else new_id()
        turn_index = turn.turn_index if turn else 0
        votable = plan == "matchup"
        token = (
            self._tokens.mint(matchup_id, slot_a.id, slot_b.id, request.session_id)
            if votable
            else None
        )
        await self._repo.create_round(
            NewRound(
                matchup_id=matchup_id,
                conversation_id=conversation_id,
                new_conversation=conversation is None,
                session_id=request.session_id,
                turn_index=turn_index,
                parent_response_id=turn.parent_response_id if turn else None,
                prompt=request.prompt,
                slot_a=slot_a,
                slot_b=slot_b,
                # A shadow round has no token; its hash column holds one nobody will ever see.
                token_hash=token_hash(token or secrets.token_urlsafe(32)),
                harness_version=self._policy.harness_version,
                mode="shadow" if plan == "shadow" else "blind",
            )
        )
        started = MatchupStarted(
            matchup_id=str(matchup_id),
            matchup_token=token,
            conversation_id=str(conversation_id),
            turn_index=turn_index,
            slots=("A",) if plan == "shadow" else ("A", "B"),
            mode="shadow" if plan == "shadow" else "matchup",
            votable=votable,
        )
        return self._launch(started, runs, messages, persisted=True, token=token)

    def _require_default(self, roster: Sequence[ModelEntry]) -> ModelEntry:
        model = self._default_model
        if model is None or all(m.id != model.id for m in roster):
            raise RoundConfigError(
                f"ARENA_DEFAULT_MODEL '{model.id if model else self._policy.default_model}' "
                "is not in the enabled roster",
                status=500,
                code="default_model_missing",
            )
        return model

    def _provider_for(self, model: ModelEntry) -> ModelProvider:
        try:
            return self._providers.resolve(model.provider)
        except ProviderUnavailable as exc:
            raise RoundConfigError(str(exc), status=500, code="provider_unavailable") from None

    def _launch(
        self,
        started: MatchupStarted,
        runs: tuple[SlotRun, ...],
        messages: Sequence[ChatMessage],
        *,
        persisted: bool,
        token: str | None,
    ) -> _Round:
        matchup_id = uuid.UUID(started.matchup_id)
        live = LiveMatchup(token_hash=token_hash(token) if token else None)
        channel = SlotChannel(frozenset(started.slots), self._max_queued)
        round_ = _Round(matchup_id, started, runs, persisted, live, [channel])
        self.registry.register(matchup_id, live)
        task = asyncio.create_task(self._pump(round_, messages))
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)
        return round_

    async def _pump(self, round_: _Round, messages: Sequence[ChatMessage]) -> None:
        """Run the generation to its end, persist each slot, publish into the channels.

        It runs in its own task, so a caller that disconnects detaches only its channel: both
        answers are still recorded.
        """
        models = {run.slot: run.model for run in round_.runs}
        live = round_.live
        try:
            stream = self._core.stream(messages, round_.runs, abort=live.abort, steer=live.steer)
            async for event in stream:
                if isinstance(event, InternalSlotDone) and round_.persisted:
                    await self._repo.save_response(
                        round_.matchup_id, event.slot, models[event.slot].id, event.result
                    )
                if isinstance(event, InternalSteered) and round_.persisted:
                    await self._repo.add_steer(
                        round_.matchup_id, event.instruction, datetime.now(UTC).isoformat()
                    )
                public = _to_public(event)
                if public is not None:
                    round_.publish(public)
        except Exception:
            _log.exception("round %s failed", round_.matchup_id)
            round_.fail(RunError(code="stream_failed", message="The round failed"))
        finally:
            self.registry.release(round_.matchup_id)
            for channel in round_.channels:
                channel.end()

    # -- control plane ---------------------------------------------------------------------------

    def _control_allowed(self, matchup_id: uuid.UUID, token: str | None) -> bool:
        """The matchup id is the capability; a token, when sent, must be this round's."""
        if token is None:
            return True
        live = self.registry.get(matchup_id)
        try:
            claims = self._tokens.verify(token)
        except VoteError:
            return False
        return (
            live is not None
            and claims.matchup_id == matchup_id
            and live.token_hash == token_hash(token)
        )

    def stop(self, matchup_id: uuid.UUID, token: str | None = None) -> tuple[bool, str | None]:
        """Abort a running round (both slots, joined or not); what was produced is kept."""
        if not self._control_allowed(matchup_id, token):
            return False, "the matchup token does not match this matchup"
        if not self.registry.stop(matchup_id):
            return False, "unknown or finished matchup"
        return True, None

    def steer(
        self, matchup_id: uuid.UUID, instruction: str, token: str | None = None
    ) -> tuple[bool, str | None]:
        """Restart a running round with ``instruction``; (accepted, reason when refused)."""
        if not self._control_allowed(matchup_id, token):
            return False, "the matchup token does not match this matchup"
        return self.registry.steer(matchup_id, instruction)

    # -- votes and reads -------------------------------------------------------------------------

    async def vote(self, request: VoteRequest) -> VoteReveal:
        """Record one vote and reveal both models; the winner is derived here, never taken.

        Raises:
            VoteError: 401 bad/expired token or claims not matching, 403 shadow matchup,
                404 unknown matchup, 409 already voted.
        """
        claims = self._tokens.verify(request.matchup_token)
        if claims.matchup_id != request.matchup_id:
            raise VoteError(
                "The token was issued for another matchup", status=401, code="invalid_token"
            )
        matchup = await self._repo.get_matchup(request.matchup_id)
        if matchup is None:
            raise VoteError("Matchup not found", status=404, code="matchup_not_found")
        if matchup.mode == "shadow":
            raise VoteError("Shadow matchups are not votable", status=403, code="not_votable")
        if matchup.token_hash != token_hash(request.matchup_token) or not self._tokens.slots_match(
            claims, matchup.slot_a.id, matchup.slot_b.id
        ):
            raise VoteError(
                "The token does not match this matchup", status=401, code="invalid_token"
            )
        slot = winner_slot(request.vote)
        winner = {"A": matchup.slot_a, "B": matchup.slot_b}[slot].id if slot else None
        stored = await self._repo.record_vote(
            matchup.id, request.vote, winner, claims.session_id, slot
        )
        if not stored:
            raise VoteError(
                "A vote was already recorded for this matchup", status=409, code="already_voted"
            )
        return VoteReveal(
            accepted=True,
            models=_reveal(matchup),
            continuable=request.vote in DECISIVE_VOTES,
            conversation_id=str(matchup.conversation_id) if matchup.conversation_id else None,
        )

    async def matchup(self, matchup_id: uuid.UUID) -> MatchupView:
        record = await self._repo.get_matchup(matchup_id)
        if record is None:
            raise NotFound("Matchup not found", code="matchup_not_found")
        return MatchupView(
            matchup_id=str(record.id),
            conversation_id=str(record.conversation_id) if record.conversation_id else None,
            turn_index=record.turn_index,
            mode="matchup",
            votable=record.vote is None and record.mode == "blind",
            continuable=record.vote in DECISIVE_VOTES,
            vote=record.vote,
            models=_reveal(record) if record.vote is not None else None,
        )

    async def shared_matchup(self, matchup_id: uuid.UUID) -> SharedMatchupView:
        """A voted matchup with its prompt, answers and identities, for a shared link.

        Raises:
            NotFound: unknown, or not voted yet (a blind round is never shown by id).
        """
        record = await self._repo.get_matchup(matchup_id)
        content = await self._repo.get_matchup_content(matchup_id)
        if record is None or content is None or record.vote is None:
            raise NotFound("No voted matchup with this id", code="matchup_not_found")
        prompt, answers = content
        return SharedMatchupView(
            matchup_id=str(record.id),
            prompt=prompt,
            vote=record.vote,
            answers=[AnswerView(slot=a.slot, content=a.content, error=a.error) for a in answers],
            models=_reveal(record),
        )

    async def conversation(
        self, conversation_id: uuid.UUID, session_id: str | None
    ) -> ConversationView:
        record = await self._repo.get_conversation(conversation_id)
        if record is None:
            raise ConversationError(
                "Conversation not found", status=404, code="conversation_not_found"
            )
        if record.session_id is not None and record.session_id != session_id:
            raise ConversationError(
                "Conversation session mismatch", status=403, code="conversation_forbidden"
            )
        return ConversationView(
            conversation_id=str(record.id),
            continuable=is_continuable(record),
            next_turn_index=len(record.turns),
            turns=[
                TurnView(
                    turn_index=t.turn_index,
                    matchup_id=str(t.matchup_id),
                    prompt=t.prompt,
                    votable=t.vote is None and t.mode == "blind",
                    vote=t.vote,
                    answers=[
                        AnswerView(slot=a.slot, content=a.content, error=a.error) for a in t.answers
                    ],
                    models=_reveal(t) if t.vote is not None else None,
                )
                for t in record.turns
            ],
        )

    async def leaderboard(self) -> LeaderboardView:
        """Enabled models' records and ratings, plus what reading the ratings needs.

        ``components`` says which ratings may be compared (the seed's rating context),
        ``styleControl`` what superficial style is worth in rating points. Each rated model is
        ranked by interval overlap within its component.
        """
        records = await self._repo.leaderboard()
        rows = records.models
        ranks = _ranks_by_overlap(
            (r.model.id, r.component_id, r.ci_lower, r.ci_upper) for r in rows
        )
        style_ranks = _ranks_by_overlap(
            (r.model.id, r.style_component_id, r.style_ci_lower, r.style_ci_upper) for r in rows
        )
        entries = []
        for r in rows:
            decided = r.wins + r.losses + r.ties
            entries.append(
                LeaderboardEntry(
                    id=str(r.model.id),
                    display_name=r.model.display_name,
                    wins=r.wins,
                    losses=r.losses,
                    ties=r.ties,
                    skips=r.skips,
                    total_votes=decided + r.skips,
                    win_rate=round(r.wins / decided, 4) if decided else 0.0,
                    rating=r.rating,
                    rating_std_error=r.rating_stderr,
                    confidence_interval=_interval(r.ci_lower, r.ci_upper),
                    component_id=r.component_id,
                    style_controlled_rating=r.style_rating,
                    style_controlled_std_error=r.style_stderr,
                    style_controlled_confidence_interval=_interval(
                        r.style_ci_lower, r.style_ci_upper
                    ),
                    games=r.games,
                    rank=ranks.get(r.model.id),
                    style_controlled_rank=style_ranks.get(r.model.id),
                )
            )
        rated = [e.component_id for e in entries if e.component_id is not None]
        groups = sorted({c: rated.count(c) for c in rated}.items())
        return LeaderboardView(
            components=Components(
                count=len(groups) if rated else None,
                groups=[ComponentGroup(component_id=c, models=n) for c, n in groups],
            ),
            style_control=_style_control(records.coefficients, records.spread),
            models=entries,
        )

    # -- analytics (the insights dashboard) ------------------------------------------------------

    def _analytics_port(self) -> AnalyticsPort:
        if self._analytics is None:
            raise NotFound("Analytics are not available on this server", code="not_found")
        return self._analytics

    async def analytics_summary(self) -> SummaryView:
        """Arena-wide totals: votes by kind, slot split, pair coverage, rating components.

        Raises:
            NotFound: this service was built without an analytics port.
        """
        return await self._analytics_port().summary()

    async def head_to_head(self) -> HeadToHeadView:
        """Per canonical pair: each side's wins and the ties (skips excluded)."""
        return await self._analytics_port().head_to_head()

    async def model_metrics(self) -> ModelMetricsView:
        """Per enabled model: TTFT and duration percentiles, mean tokens and Markdown density of
        its error-free answers, and its decisive record in each slot."""
        return await self._analytics_port().model_metrics()

    async def activity(
        self, bucket: ActivityBucket = "day", since: datetime | None = None
    ) -> ActivityView:
        """Votes by outcome and cumulative games per model, per UTC day or hour.

        Args:
            bucket: ``day`` or ``hour``.
            since: only buckets starting at or after this instant (timezone-aware); the
                cumulative games still count every earlier vote.

        Raises:
            InvalidRequest: an unknown bucket, or ``since`` without a timezone.
        """
        if bucket not in ("day", "hour"):
            raise InvalidRequest(
                "bucket must be day or hour", details={"bucket": ["must be day or hour"]}
            )
        return await self._analytics_port().activity(bucket, _aware(since))

    async def style_control(self) -> StyleControlView:
        """The stored style coefficients and the models rated by both passes."""
        return await self._analytics_port().style_control()

    async def rating_history(
        self, since: datetime | None = None, *, points: int | None = None
    ) -> RatingHistoryView:
        """Rating snapshots (one per model per refit) at or after ``since``, in time order;
        with ``points``, only the last refit of each of that many equal spans of time.

        Raises:
            InvalidRequest: ``since`` has no timezone, or ``points`` is outside 1..10,000.
        """
        if points is not None and not 1 <= points <= MAX_HISTORY_POINTS:
            raise InvalidRequest(
                f"points must be between 1 and {MAX_HISTORY_POINTS}",
                details={"points": [f"must be between 1 and {MAX_HISTORY_POINTS}"]},
            )
        return await self._analytics_port().rating_history(_aware(since), points)


def _aware(since: datetime | None) -> datetime | None:
    if since is not None and since.utcoffset() is None:
        raise InvalidRequest(
            "since must carry a timezone", details={"since": ["needs a timezone, e.g. Z"]}
        )
    return since


def _ranks_by_overlap(
    rows: Iterable[tuple[uuid.UUID, int | None, float | None, float | None]],
) -> dict[uuid.UUID, int]:
    """Rank = 1 + the models of the same component whose lower bound exceeds this upper bound.

    Models whose intervals overlap share a rank; unrated models (no component or interval) get
    none. ``rows`` holds (model id, component id, interval lower, interval upper).
    """
    rated = [
        (model_id, component, lower, upper)
        for model_id, component, lower, upper in rows
        if component is not None and lower is not None and upper is not None
    ]
    return {
        model_id: 1 + sum(1 for _, other, lower, _ in rated if other == component and lower > upper)
        for model_id, component, _, upper in rated
    }


def _style_control(coefficients: Sequence[StyleCoefficient], spread: StyleSpread) -> StyleControl:
    """The stored style coefficients restated in rating points, per standard deviation and
    (where the deltas' spread is known) per readable unit of the raw feature."""
    if not coefficients:
        return StyleControl(effects=[], votes_observed=0, computed_at=None)
    effects = []
    for c in coefficients:
        points = DISPLAY_SCALE * c.coefficient
        absolute = c.feature in ABSOLUTE_STYLE_FEATURES
        unit = STYLE_UNITS.get(c.feature)
        std_dev = spread.std_dev.get(c.feature)
        per_unit = (
            StyleUnit(points=points / std_dev * unit[0], unit=unit[1])
            if not absolute and unit is not None and std_dev
            else None
        )
        effects.append(
            StyleEffect(
                feature=c.feature,
                log_odds=c.coefficient,
                points=points,
                basis="absolute" if absolute else "per_std_dev",
                per_unit=per_unit,
            )
        )
    known = {feature: k for k, feature in enumerate(STYLE_FEATURE_ORDER)}
    effects.sort(key=lambda e: (known.get(e.feature, len(known)), e.feature))
    return StyleControl(
        effects=effects,
        votes_observed=spread.votes,
        computed_at=max(c.computed_at for c in coefficients),
    )


def _to_public(event: InternalEvent) -> PublicEvent | None:
    """The public form of an internal event; channels filter by slot and add matchup_done."""
    if isinstance(event, InternalToken):
        return Token(slot=event.slot, token=event.text)
    if isinstance(event, InternalSlotError):
        return SlotError(slot=event.slot, message=event.message)
    if isinstance(event, InternalSlotDone):
        return SlotDone(slot=event.slot)
    if isinstance(event, InternalSteered):
        return Steered(instruction=event.instruction)
    if isinstance(event, InternalMatchupDone):
        return None
    raise TypeError(f"unknown internal event {event!r}")


def _identity(model: ModelEntry) -> ModelIdentity:
    return ModelIdentity(id=str(model.id), display_name=model.display_name)


def _reveal(record: MatchupRecord | TurnRecord) -> RevealedModels:
    return RevealedModels(A=_identity(record.slot_a), B=_identity(record.slot_b))


def _interval(lower: float | None, upper: float | None) -> ConfidenceInterval | None:
    return None if lower is None or upper is None else ConfidenceInterval(lower=lower, upper=upper)
