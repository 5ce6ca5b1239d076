"""ArenaService: rounds, votes and control, for the HTTP routes and the Reflex UI alike.

It owns a round from start to persistence: plan, conversation, pair, token, the matchup rows,
ArenaCore's generation, the responses. A round runs in a task of its own (``_Round.pump``) that
outlives the caller's connection, so a client that disconnects mid-stream still gets both answers
recorded; the caller only subscribes to the public events.
"""

from __future__ import annotations

import asyncio
import logging
import random
import secrets
import uuid
from collections.abc import AsyncGenerator, Callable, Sequence
from dataclasses import dataclass, replace

from arena_api.core.arena import ArenaCore, SlotRun
from arena_api.core.breaker import NOT_FAILURES, CircuitBreaker
from arena_api.core.categories import UNDETERMINED, classify, prompt_key
from arena_api.core.clock import SYSTEM_CLOCK, Clock
from arena_api.core.control import (
    UNKNOWN_MATCHUP,
    ControlOutcome,
    ControlRelay,
    ControlRequest,
    LiveMatchup,
    LocalRelay,
    MatchupRegistry,
)
from arena_api.core.conversation import next_turn
from arena_api.core.errors import (
    ConversationError,
    InvalidRequest,
    ModelsPaused,
    ProviderUnavailable,
    RoundConfigError,
    ShuttingDown,
    StorageUnavailable,
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
    NamedModel,
    PublicEvent,
    RunError,
    SlotDone,
    SlotError,
    Steered,
    Token,
)
from arena_api.core.ids import new_id
from arena_api.core.join import (
    FollowerRole,
    JoinBroker,
    Joiner,
    JoinError,
    JoinHandshake,
    SlotChannel,
)
from arena_api.core.media import ChatImage, ImageError, not_a_vision_model, too_few_vision_models
from arena_api.core.models import ChatMessage, ModelEntry, ModelWithStatus, Slot
from arena_api.core.plans import Plan, is_opted_in, resolve_default_model, resolve_plan
from arena_api.core.ports import (
    Matchmaker,
    ModelProvider,
    NoObserver,
    ProviderResolver,
    RoundObserver,
    RoundStore,
)
from arena_api.core.reasons import VoteReasons
from arena_api.core.records import (
    DECISIVE_VOTES,
    ConversationRecord,
    MatchupRecord,
    NewRound,
    check_votable,
)
from arena_api.core.refresh import Refreshed
from arena_api.core.requests import ChatRequest, ImageBody, VoteRequest
from arena_api.core.tokens import MatchupTokenService, TokenClaims, token_hash
from arena_api.core.views import ReasonChoice, ReasonChoicesView, VoteReveal
from arena_api.core.votes import HumanSource, cast_vote
from arena_api.services._reveal import reveal
from arena_api.services.media import ImageIntake
from arena_api.services.votes import VoteRecorder

__all__ = ["ROSTER_TTL_S", "ArenaService", "RoundOptions", "RoundPolicy", "RoundStream"]

_log = logging.getLogger(__name__)
#: How long the playable roster is kept before a round reads it afresh (``roster_ttl_s``).
ROSTER_TTL_S = 2.0


@dataclass(frozen=True)
class RoundPolicy:
    """The settings that shape rounds (a slice of ``Settings``, so the core stays pure)."""

    trigger: str = "always"
    exposure: str = "blind"
    sample_rate: float = 0.0
    default_model: str | None = None
    harness_version: str = "v1"


#: How long stopped rounds get to store what they produced before a drain gives up on them.
STOP_WAIT_S = 2.0


@dataclass(frozen=True)
class RoundOptions:
    """What a caller may fix about a round beyond its request (the OpenAI chat front does).

    Attributes:
        plan: this plan instead of the trigger and exposure's (a picked arena model is an
            explicit choice, and its label must stay true).
        model: the model of a ``single`` round instead of ``ARENA_DEFAULT_MODEL``.
        context: messages before the prompt of a ``single`` round that continues no arena
            conversation (a client's own chat with one model).
        slot: the one slot this request streams of a matchup shared with a sibling request
            (``joinKey`` required); see ``start_round``.
        protocol: the wire protocol the round is framed in (``ui`` for the Reflex page), for
            the metrics.
        pair: these two models for a blind matchup instead of the matchmaker's draw (a
            suite's fixed pair); which is A is still drawn at random.
    """

    plan: Plan | None = None
    model: ModelEntry | None = None
    context: tuple[ChatMessage, ...] = ()
    slot: Slot | None = None
    protocol: str = "sse"
    pair: tuple[ModelEntry, ModelEntry] | None = None


@dataclass
class RoundStream:
    """A started round: its first event (also the ``x-arena-matchup`` header) and the stream.

    ``events()`` yields ``matchup_started`` first and ends after ``matchup_done`` or ``run_error``;
    ``batches()`` yields the same events in lists of all that was waiting (for a writer that
    can send several at once). Read one of the two, once. Closing it detaches the caller; the
    round itself runs on and is persisted.
    """

    started: MatchupStarted
    channel: SlotChannel

    def events(self) -> AsyncGenerator[PublicEvent, None]:
        return self.channel.events(self.started)

    def batches(self) -> AsyncGenerator[list[PublicEvent], None]:
        return self.channel.batches(self.started)


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
        repository: RoundStore,
        votes: VoteRecorder,
        providers: ProviderResolver,
        matchmaker: Matchmaker,
        core: ArenaCore,
        tokens: MatchupTokenService,
        policy: RoundPolicy,
        join: Joiner | None = None,
        max_queued_events: int = 4096,
        rng: random.Random | None = None,
        observer: RoundObserver | None = None,
        language: Callable[[str], str] | None = None,
        relay: ControlRelay | None = None,
        clock: Clock = SYSTEM_CLOCK,
        roster_ttl_s: float = ROSTER_TTL_S,
        breaker: CircuitBreaker | None = None,
        reasons: VoteReasons | None = None,
        images: ImageIntake | None = None,
    ) -> None:
        self._repo = repository
        #: Reads a request's images; none: a round with images is refused (400).
        self._images = images
        self._votes = votes
        self._providers = providers
        self._matchmaker = matchmaker
        self._core = core
        self._tokens = tokens
        self._policy = policy
        self._rng = rng or random.Random()
        # Every round asks; one read at a time, kept for ``roster_ttl_s``.
        self._roster = Refreshed(self._playable, roster_ttl_s, clock.monotonic)
        self._held_back = Refreshed(self._read_held_back, roster_ttl_s, clock.monotonic)
        self._default_model: ModelEntry | None = None
        self._join: Joiner = join or JoinBroker(window_s=0, max_pending=1)
        self._max_queued = max_queued_events
        self._tasks: set[asyncio.Task[None]] = set()
        self._draining = False
        self._observer: RoundObserver = observer or NoObserver()
        #: The prompt's language (an ISO 639 code, or ``und``): the adapter ``app.py`` picks.
        self._language = language or (lambda _: UNDETERMINED)
        self.registry = MatchupRegistry()
        #: Reaches rounds that other replicas run (``LocalRelay``: there are none).
        self._relay: ControlRelay = relay or LocalRelay()
        self._clock = clock
        #: Pauses a model that keeps failing from matchmaking (``ARENA_BREAKER_*``); this process's
        #: own view: each replica counts the answers it relays.
        self.breaker = breaker or CircuitBreaker(
            failures=5, window=10, cooldown_s=60, clock=clock.monotonic
        )
        #: The reasons a person may give with a vote (``ARENA_VOTE_REASONS``).
        self.reasons = reasons or VoteReasons()

    # -- lifecycle -------------------------------------------------------------------------------

    async def start(self) -> None:
        """Resolve ``ARENA_DEFAULT_MODEL`` against the enabled roster (at boot, once).

        Raises:
            RoundConfigError: it is required and matches no enabled model (or several).
        """
        if self._policy.default_model is not None:
            roster = await self.playable_roster(refresh=True)
            self._default_model = resolve_default_model(self._policy.default_model, roster)

    @property
    def draining(self) -> bool:
        """The server is shutting down: no new round starts."""
        return self._draining

    async def drain(self, grace_s: float) -> int:
        """Take no new round; let running ones finish for up to ``grace_s``, then stop the rest
        as an operator's stop would (each slot keeps and stores what it produced, marked
        ``stopped``). Returns how many rounds had to be stopped."""
        self._draining = True
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=grace_s)
        stopped = self.registry.stop_all()
        if self._tasks:
            await asyncio.wait(set(self._tasks), timeout=STOP_WAIT_S)
        return stopped

    async def close(self, grace_s: float = 10.0) -> None:
        """Drain (see ``drain``), then cancel whatever still runs."""
        await self.drain(grace_s)
        pending = set(self._tasks)
        for task in pending:
            task.cancel()
        await asyncio.gather(*pending, return_exceptions=True)

    @property
    def running_rounds(self) -> int:
        return len(self.registry)

    @property
    def default_model(self) -> ModelEntry | None:
        """``ARENA_DEFAULT_MODEL`` as resolved at start, if set."""
        return self._default_model

    @property
    def join_broker(self) -> Joiner:
        return self._join

    # -- roster ----------------------------------------------------------------------------------

    async def roster(self) -> list[ModelEntry]:
        """The enabled models; the roster is public, only a matchup's draw is blind."""
        return await self._repo.enabled_models()

    async def playable_roster(self, *, refresh: bool = False) -> list[ModelEntry]:
        """Enabled models whose provider is configured (others cannot answer); kept for
        ``roster_ttl_s``, as every round asks."""
        return await self._roster.get(refresh=refresh)

    def roster_changed(self) -> None:
        """The roster was edited: the next round reads it afresh, not after ``roster_ttl_s``."""
        self._roster.invalidate()
        self._held_back.invalidate()

    async def held_back(self) -> list[ModelWithStatus]:
        """The paused and archived models, which no round draws or may name; read only when a
        request names a model the playable roster lacks (to say why), kept for
        ``roster_ttl_s`` like the roster."""
        return await self._held_back.get()

    async def usable_models(self) -> int:
        """How many models can answer now, read afresh: for the start's log and ``/health``,
        which must not hold an older roster for the rounds that follow."""
        return len(await self._playable())

    async def _read_held_back(self) -> list[ModelWithStatus]:
        return await self._repo.held_back_models()

    async def _playable(self) -> list[ModelEntry]:
        names = self._providers.names()
        return [m for m in await self._repo.enabled_models() if m.provider in names]

    # -- rounds ----------------------------------------------------------------------------------

    async def start_round(
        self,
        request: ChatRequest,
        *,
        x_arena: str | None = None,
        options: RoundOptions | None = None,
    ) -> RoundStream:
        """Plan, validate and persist a round's start, then run it in the background.

        With a ``joinKey`` (and joining enabled) the request may instead become one half of a
        matchup shared with a sibling request (see ``arena_api.core.join``). Every failure before
        streaming raises an ``ArenaError`` and leaves nothing stored.

        Raises:
            JoinError: for a request that names its slot (``options.slot``): 409
                ``join_unpaired`` when no sibling came within the window (nothing was stored),
                409 ``join_slot_taken`` when the sibling streams the same slot, 503
                ``join_disabled`` when slot join is off; and the errors of any joined request.
        """
        if self._draining:
            raise ShuttingDown("The server is shutting down; try again in a moment")
        options = options or RoundOptions()
        if request.slot is not None and options.slot is None:
            options = replace(options, slot=request.slot)
        requested_at_ms = int(self._clock.now().timestamp() * 1000)
        # A named round is the person's explicit choice of two models: always a matchup.
        plan = (
            options.plan
            or ("matchup" if request.mode == "named" else None)
            or resolve_plan(
                trigger=self._policy.trigger,
                exposure=self._policy.exposure,
                sample_rate=self._policy.sample_rate,
                opted_in=is_opted_in(request.arena, x_arena),
                rng=self._rng,
            )
        )
        if options.slot is not None and not self._join.enabled:
            raise JoinError(
                "Slot join is turned off on this server (ARENA_JOIN_WINDOW_MS=0)",
                status=503,
                code="join_disabled",
            )
        # Joining splits the two slots of a matchup; single and shadow rounds have one visible
        # slot, so a joinKey on them is ignored and each sibling is served on its own.
        if request.join_key is None or not self._join.enabled or plan != "matchup":
            round_ = await self._open_round(request, plan, requested_at_ms, options)
            return RoundStream(round_.started, round_.channels[0])
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
        claim = await self._join.join(scope, options.slot)
        if isinstance(claim, FollowerRole):
            self._observer.join_ended("joined")
            handshake = await claim.handshake()
            return RoundStream(handshake.started, handshake.channel)
        # A request that names its slot shows that slot alone: nothing is stored and no model
        # is asked until its sibling is here. Otherwise the round starts at once and an
        # unpaired leader streams both slots.
        if options.slot is not None and not await claim.wait_for_follower():
            self._observer.join_ended("unpaired")
            raise JoinError(
                "No sibling request for the other slot arrived within the join window",
                status=409,
                code="join_unpaired",
            )
        try:
            round_ = await self._open_round(request, plan, requested_at_ms, options)
        except BaseException as exc:
            claim.fail(exc)
            raise
        if options.slot is None and not await claim.wait_for_follower():
            self._observer.join_ended("unpaired")
            return RoundStream(round_.started, round_.channels[0])
        other: Slot = "B" if claim.slot == "A" else "A"
        follower = round_.channels[0].split(other, self._max_queued)
        round_.channels.append(follower)
        claim.publish(
            JoinHandshake(round_.started.model_copy(update={"slots": (other,)}), follower)
        )
        leader_started = round_.started.model_copy(update={"slots": (claim.slot,)})
        return RoundStream(leader_started, round_.channels[0])

    async def _open_round(
        self,
        request: ChatRequest,
        plan: Plan,
        requested_at_ms: int | None = None,
        options: RoundOptions | None = None,
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
        if plan == "single" and options and not history:
            history = options.context
        images = await self._read_images(request)
        messages = (*history, ChatMessage(role="user", content=request.prompt, images=images))
        roster = await self.playable_roster()
        image_count = sum(len(m.images) for m in messages)
        if image_count:
            messages = await self._image_intake().with_bytes(messages)
            roster = self._vision_roster(roster, plan, request, options)

        if plan == "single":
            model = options.model if options and options.model else self._require_default(roster)
            runs: tuple[SlotRun, ...] = (SlotRun("A", model, self._provider_for(model)),)
            started = MatchupStarted(
                matchup_id=str(new_id()), slots=("A",), mode="single", votable=False
            )
            return self._launch(
                started, runs, messages, persisted=False, token=None, plan=plan, options=options
            )

        if plan == "shadow":
            incumbent = self._require_default(roster)
            stats = await self._repo.snapshot()
            drawable = [incumbent, *self._drawable(roster, incumbent)]
            challenger = self._matchmaker.pick_challenger(drawable, incumbent, stats, self._rng)
            slot_a, slot_b = incumbent, challenger
        elif request.models is not None:
            slot_a, slot_b = await self._named_pair(roster, request.models)
        else:
            if options and options.pair:
                first, second = options.pair
            else:
                stats = await self._repo.snapshot()
                drawable = self._drawable(roster)
                first, second = self._matchmaker.pick_pair(drawable, stats, self._rng)
            slot_a, slot_b = (first, second) if self._rng.random() < 0.5 else (second, first)
        self.breaker.drawn(slot_a)
        self.breaker.drawn(slot_b)
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
                mode="shadow" if plan == "shadow" else request.mode,
                categories=classify(request.prompt, turn_index=turn_index, images=image_count),
                language=self._language(request.prompt),
                prompt_key=prompt_key(request.prompt, [i.ref.sha256 for i in images]),
                replica=self._relay.replica,
                images=images,
            )
        )
        named = request.models is not None
        started = MatchupStarted(
            matchup_id=str(matchup_id),
            matchup_token=token,
            conversation_id=str(conversation_id),
            turn_index=turn_index,
            slots=("A",) if plan == "shadow" else ("A", "B"),
            mode="shadow" if plan == "shadow" else "named" if named else "matchup",
            votable=votable,
            models={
                "A": NamedModel(id=str(slot_a.id), display_name=slot_a.display_name),
                "B": NamedModel(id=str(slot_b.id), display_name=slot_b.display_name),
            }
            if named
            else None,
        )
        return self._launch(
            started, runs, messages, persisted=True, token=token, plan=plan, options=options
        )

    def _image_intake(self) -> ImageIntake:
        if self._images is None:
            raise ImageError(
                "This server takes no images", code="images_not_supported", field="images"
            )
        return self._images

    async def read_images(
        self, bodies: Sequence[ImageBody], fields: Sequence[str]
    ) -> tuple[ChatImage, ...]:
        """One message's images, checked and re-encoded (a single model's context, which no
        stored conversation holds).

        Raises:
            ImageError: the first image refused.
        """
        return await self._image_intake().read_bodies(bodies, fields) if bodies else ()

    async def _read_images(self, request: ChatRequest) -> tuple[ChatImage, ...]:
        """The request's images, checked (``ImageIntake.read``); before anything is stored."""
        return await self._image_intake().read(request) if request.images else ()

    def _vision_roster(
        self,
        roster: Sequence[ModelEntry],
        plan: Plan,
        request: ChatRequest,
        options: RoundOptions | None,
    ) -> list[ModelEntry]:
        """The models that may answer a round with images: those that read them.

        Raises:
            ArenaError: 409 ``model_not_vision`` when the round names (or, single or shadow,
                defaults to) a model that reads none; 409 ``not_enough_vision_models`` when
                fewer than two do.
        """
        vision = [m for m in roster if m.vision]
        by_id = {str(m.id): m for m in roster}
        named = [by_id[i.lower()] for i in request.models or () if i.lower() in by_id]
        if plan == "single" and options and options.model:
            named.append(options.model)
        elif plan in ("single", "shadow") and self._default_model is not None:
            named.append(self._default_model)
        for model in named:
            if not model.vision:
                raise not_a_vision_model(model.display_name)
        if plan != "single" and len(vision) < 2:
            raise too_few_vision_models(len(vision))
        return vision

    def _drawable(self, roster: Sequence[ModelEntry], *also: ModelEntry) -> list[ModelEntry]:
        """The models of ``roster`` (but ``also``) the matchmaker may draw: the breaker's paused
        ones sit out.

        Raises:
            ModelsPaused: (503 ``models_paused``) the roster has models enough, but too few of
                them are not paused.
        """
        others = [m for m in roster if m not in also]
        drawable = self.breaker.playable(others)
        needed = 2 - len(also)
        if len(drawable) < needed <= len(others):
            now = self.breaker.clock()
            retry = min((p.until for p in self.breaker.paused()), default=now) - now
            raise ModelsPaused(len(drawable) + len(also), len(others) - len(drawable), retry)
        return drawable

    async def _named_pair(
        self, roster: Sequence[ModelEntry], ids: tuple[str, str]
    ) -> tuple[ModelEntry, ModelEntry]:
        """The two models a named round was asked for, A first, by their roster ids.

        Raises:
            InvalidRequest: an id names no model at all (or one whose provider is not set up).
            ModelNotMatched: (409 ``model_paused`` / ``model_archived``) an id names a paused or
                archived model.
        """
        by_id = {str(m.id): m for m in roster}
        unknown = [model_id for model_id in ids if model_id.lower() not in by_id]
        if unknown:
            held = {str(h.model.id): h for h in await self.held_back()}
            ghosts = [model_id for model_id in unknown if model_id.lower() not in held]
            if ghosts:
                raise InvalidRequest(
                    "Pick two enabled models for a named round",
                    details={"models": [f"no enabled model has the id {m!r}" for m in ghosts]},
                )
            raise held[unknown[0].lower()].not_matched()
        return by_id[ids[0].lower()], by_id[ids[1].lower()]

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
        plan: Plan,
        options: RoundOptions | None,
    ) -> _Round:
        self._observer.round_started(
            started.mode, plan, options.protocol if options else RoundOptions.protocol
        )
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
        answers are still recorded. A slot's answer is stored before its ``slot_done`` goes out.
        Tokens do not pass through it: each is published from its slot's task as it comes
        (``on_token``), which spares the pump a wakeup per token.
        """
        models = {run.slot: run.model for run in round_.runs}
        live = round_.live
        unrecorded: set[Slot] = set()
        failed: set[Slot] = set()  # slots whose provider failed them (the breaker counts)
        try:
            stream = self._core.stream(
                messages,
                round_.runs,
                abort=live.abort,
                steer=live.steer,
                on_token=lambda slot, text: round_.publish(Token(slot=slot, token=text)),
            )
            async for event in stream:
                if isinstance(event, InternalSlotError) and event.code not in NOT_FAILURES:
                    failed.add(event.slot)
                if isinstance(event, InternalSlotDone):
                    model = models[event.slot]
                    self._observer.slot_finished(model.provider, model.display_name, event.result)
                    self._count_answer(model, event.slot in failed)
                if isinstance(event, InternalSlotDone) and round_.persisted:
                    try:
                        await self._repo.save_response(
                            round_.matchup_id, event.slot, models[event.slot].id, event.result
                        )
                    except StorageUnavailable:
                        # The stream goes on; what is lost is said, in the log and to the client.
                        _log.error(
                            "round %s: slot %s's answer (model %s, %d characters) could not be "
                            "stored: the database is unavailable",
                            round_.matchup_id,
                            event.slot,
                            models[event.slot].id,
                            len(event.result.content),
                        )
                        unrecorded.add(event.slot)
                if isinstance(event, InternalSteered) and round_.persisted:
                    await self._repo.add_steer(
                        round_.matchup_id, event.instruction, self._clock.now().isoformat()
                    )
                public = _to_public(event)
                if isinstance(public, SlotDone) and public.slot in unrecorded:
                    public = SlotDone(slot=public.slot, recorded=False)
                if public is not None:
                    round_.publish(public)
        except Exception:
            _log.exception("round %s failed", round_.matchup_id)
            round_.fail(RunError(code="stream_failed", message="The round failed"))
        finally:
            self.registry.release(round_.matchup_id)
            for channel in round_.channels:
                channel.end()

    def _count_answer(self, model: ModelEntry, failed: bool) -> None:
        """Tell the breaker how ``model``'s answer ended (its listeners hear of a pause)."""
        change = self.breaker.record(model, failed)
        if change is not None:
            log = _log.warning if change.state == "paused" else _log.info
            log("model %s %s by the circuit breaker", model.display_name, change.state)

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

    async def stop(self, matchup_id: uuid.UUID, token: str | None = None) -> ControlOutcome:
        """Abort a running round (both slots, joined or not); what was produced is kept."""
        return await self.control(ControlRequest("stop", matchup_id, token))

    async def steer(
        self, matchup_id: uuid.UUID, instruction: str, token: str | None = None
    ) -> ControlOutcome:
        """Restart a running round with ``instruction``."""
        return await self.control(ControlRequest("steer", matchup_id, token, instruction))

    async def control(self, request: ControlRequest) -> ControlOutcome:
        """A stop or steer, here when this process runs the round, else where it runs."""
        outcome = self.control_here(request) or await self._relay.forward(request)
        self._observer.control_action(request.action, outcome.ok)
        return outcome

    def control_here(self, request: ControlRequest) -> ControlOutcome | None:
        """A stop or steer of a round this process runs; ``None`` when it does not run here
        (what the relay asks on behalf of another replica, too)."""
        if self.registry.get(request.matchup_id) is None:
            return None
        if not self._control_allowed(request.matchup_id, request.token):
            return ControlOutcome(False, "the matchup token does not match this matchup")
        if request.action == "stop":
            if not self.registry.stop(request.matchup_id):
                return ControlOutcome(False, UNKNOWN_MATCHUP)
            return ControlOutcome(True)
        assert request.instruction is not None
        return self.registry.steer(request.matchup_id, request.instruction)

    # -- votes -----------------------------------------------------------------------------------

    def reason_choices(self) -> ReasonChoicesView:
        """The reasons a vote may carry, for clients to offer as chips."""
        return ReasonChoicesView(
            reasons=[ReasonChoice(id=s, label=self.reasons.label(s)) for s in self.reasons.slugs]
        )

    async def votable_matchup(
        self, matchup_id: uuid.UUID, matchup_token: str
    ) -> tuple[MatchupRecord, TokenClaims]:
        """The matchup ``matchup_token`` lets its holder vote on (or ask the judge about).

        Raises:
            VoteError: 401 bad/expired token or claims not matching, 403 shadow matchup,
                404 unknown matchup.
        """
        claims = self._tokens.verify(matchup_token)
        if claims.matchup_id != matchup_id:
            raise VoteError(
                "The token was issued for another matchup", status=401, code="invalid_token"
            )
        matchup = await self._repo.get_matchup(matchup_id)
        if matchup is None:
            raise VoteError("Matchup not found", status=404, code="matchup_not_found")
        check_votable(matchup)
        if matchup.token_hash != token_hash(matchup_token) or not self._tokens.slots_match(
            claims, matchup.slot_a.id, matchup.slot_b.id
        ):
            raise VoteError(
                "The token does not match this matchup", status=401, code="invalid_token"
            )
        return matchup, claims

    async def vote(
        self, request: VoteRequest, source: HumanSource = "api", *, user_id: str | None = None
    ) -> VoteReveal:
        """Record one vote and reveal both models; the winner is derived here, never taken.
        ``source`` is where it was cast (``api`` or the arena page, ``ui``); ``user_id`` the
        signed-in person who cast it, if one did.

        Raises:
            VoteError: 400 ``invalid_reasons`` (checked first: nothing is stored), 401
                bad/expired token or claims not matching, 403 shadow matchup, 404 unknown
                matchup, 409 already voted, 429 ``user_vote_cap``.
        """
        reasons = self.reasons.check(request.reasons)
        matchup, claims = await self.votable_matchup(request.matchup_id, request.matchup_token)
        vote = cast_vote(
            matchup,
            request.vote,
            method="human",
            source=source,
            session_id=claims.session_id,
            reasons=reasons,
            user_id=user_id,
        )
        if not await self._votes.record(vote):
            raise VoteError(
                "A vote was already recorded for this matchup", status=409, code="already_voted"
            )
        return VoteReveal(
            accepted=True,
            models=reveal(matchup),
            continuable=request.vote in DECISIVE_VOTES,
            conversation_id=str(matchup.conversation_id) if matchup.conversation_id else None,
            reasons=list(reasons),
        )


def _to_public(event: InternalEvent) -> PublicEvent | None:
    """The public form of an internal event; channels filter by slot and add matchup_done."""
    if isinstance(event, InternalToken):
        return Token(slot=event.slot, token=event.text)
    if isinstance(event, InternalSlotError):
        return SlotError(slot=event.slot, message=event.message, code=event.code)
    if isinstance(event, InternalSlotDone):
        return SlotDone(slot=event.slot)
    if isinstance(event, InternalSteered):
        return Steered(instruction=event.instruction)
    if isinstance(event, InternalMatchupDone):
        return None
    raise TypeError(f"unknown internal event {event!r}")
