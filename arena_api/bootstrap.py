"""The composition root: ``bootstrap(settings)`` builds every service and adapter once.

Everything that runs the arena opens its services here: the API's lifespan
(``arena_api.app.services_lifespan``, which the Reflex app runs as its own lifespan task, since a
mounted app's lifespan never runs), the CLI's commands that need the whole server
(``arena suite run``), and the tests. It picks the adapters (PostgreSQL, aiohttp providers, Redis
with ``REDIS_URL``) and yields them wired into the ``Services`` container
(``arena_api.services.container``), the one object the routes and the Reflex states read.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import hashlib
import hmac
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable, Coroutine
from dataclasses import dataclass
from typing import TYPE_CHECKING
from urllib.parse import urlsplit

import asyncpg

from arena_api.core.arena import ArenaCore
from arena_api.core.breaker import CircuitBreaker
from arena_api.core.control import ControlRelay
from arena_api.core.errors import NotEnoughModels
from arena_api.core.join import JoinBroker, Joiner
from arena_api.core.judging import DEFAULT_PROMPT
from arena_api.core.matchmaking import make_matchmaker
from arena_api.core.models import ModelEntry, Prices
from arena_api.core.ports import ImageReads, RoundObserver
from arena_api.core.ratelimit import Limit, Limiter, RateLimiter
from arena_api.core.reasons import VoteReasons
from arena_api.core.standing import ProvisionalRule
from arena_api.core.tokens import MatchupTokenService
from arena_api.db.analytics import PostgresAnalytics
from arena_api.db.chats import PostgresChatLinks
from arena_api.db.engine import create_engine, embedded_postgres
from arena_api.db.export import PostgresVoteRows
from arena_api.db.judgements import PostgresAutoJudgeQueue, PostgresBackfillRounds
from arena_api.db.lost import mark_lost_rounds
from arena_api.db.media import PostgresImages
from arena_api.db.repository import PostgresRepository, create_pool
from arena_api.db.retention import keep_text_for
from arena_api.db.review import PostgresReview
from arena_api.db.roster import PostgresRoster
from arena_api.db.status import PostgresProbe
from arena_api.db.suites import PostgresSuiteRuns
from arena_api.db.users import PostgresUsers
from arena_api.db.votes import PostgresVotes
from arena_api.examples import BUILTIN_EXAMPLE_PROMPTS, ExamplePromptsError, example_prompts
from arena_api.keys import DEV_SECRET_FILE, export_salt, token_secret, uses_dev_secret
from arena_api.language import detect_language
from arena_api.media import LazyPillowCodec
from arena_api.metrics import ArenaMetrics
from arena_api.providers import ProviderRegistry, build_registry, make_session
from arena_api.roster import RosterError, roster_of
from arena_api.services import ArenaService, OpenAiChatService, ReadService, RoundPolicy
from arena_api.services.access import AccessService
from arena_api.services.autojudge import AutoJudge
from arena_api.services.container import Services
from arena_api.services.examples import ExamplePrompts
from arena_api.services.export import VoteExport
from arena_api.services.identity import IdentityService, OidcSettings
from arena_api.services.image_links import ImageLinks
from arena_api.services.judge import JudgeModel, JudgeService
from arena_api.services.judge_backfill import JudgeBackfill
from arena_api.services.live_feeds import LiveFeeds
from arena_api.services.media import ImageIntake
from arena_api.services.review import ReviewService
from arena_api.services.roster import RosterAdmin
from arena_api.services.suites import SuiteService
from arena_api.services.users import UserAdmin
from arena_api.services.votes import VoteRecorder
from arena_api.settings import Settings
from arena_api.suites import SuiteLoad, load_suites
from arena_api.webhook import open_alerts

if TYPE_CHECKING:
    from arena_api.cluster import Cluster
    from arena_api.cluster.feeds import RedisFeeds

__all__ = ["Services", "bootstrap", "build_arena", "load_judge"]

_log = logging.getLogger(__name__)


def build_arena(
    settings: Settings,
    repository: PostgresRepository,
    *,
    votes: VoteRecorder,
    providers: ProviderRegistry,
    observer: RoundObserver | None = None,
    secret: bytes | None = None,
    relay: ControlRelay | None = None,
    join: Joiner | None = None,
    images: ImageReads | None = None,
) -> ArenaService:
    """Wire ArenaService from settings and the adapters ``bootstrap`` built: the one place that
    picks its matchmaker, token service, join broker, round policy and image intake (with no
    image store, a round with images is refused)."""
    return ArenaService(
        repository=repository,
        votes=votes,
        providers=providers,
        matchmaker=make_matchmaker(settings.matchmaker),
        core=ArenaCore(slot_timeout_s=settings.slot_timeout_s),
        tokens=MatchupTokenService(secret or token_secret(settings)),
        join=join
        or JoinBroker(
            window_s=settings.join_window_ms / 1000, max_pending=settings.join_max_pending
        ),
        max_queued_events=settings.join_max_queued_events,
        policy=RoundPolicy(
            trigger=settings.trigger,
            exposure=settings.exposure,
            sample_rate=settings.sample_rate,
            default_model=settings.default_model,
            harness_version=settings.harness_version,
        ),
        observer=observer,
        language=detect_language,
        relay=relay,
        breaker=CircuitBreaker(
            failures=settings.breaker_failures,
            window=settings.breaker_window,
            cooldown_s=settings.breaker_cooldown_s,
            clock=time.monotonic,
        ),
        reasons=VoteReasons(settings.vote_reasons),
        images=None if images is None else build_image_intake(settings, images),
    )


def build_image_intake(settings: Settings, store: ImageReads) -> ImageIntake:
    """The image intake of ``settings``: Pillow's codec, and the guarded fetcher where images by
    URL are allowed."""
    limits = settings.image_limits
    fetcher = None
    if limits.allow_urls:
        from arena_api.media.fetch import GuardedFetcher

        fetcher = GuardedFetcher(limits)
    return ImageIntake(limits, LazyPillowCodec(limits), store, fetcher)


def load_judge(settings: Settings) -> JudgeModel | None:
    """The roster's judge (``judge:`` in ``ARENA_MODELS_FILE``), or None without one.

    The roster was validated when ``arena serve`` seeded it; a file that cannot be read now
    leaves the arena without a judge (logged), not without a server.
    """
    try:
        judge = roster_of(settings).judge
    except RosterError as exc:
        _log.error("no judge: %s", exc)
        return None
    if judge is None:
        return None
    prices = (
        None
        if judge.price is None
        else Prices(input_per_mtok=judge.price.input, output_per_mtok=judge.price.output)
    )
    model = ModelEntry(
        id=uuid.uuid5(
            uuid.NAMESPACE_URL, f"arena-judge:{judge.provider}:{judge.provider_model_id}"
        ),
        display_name=judge.display_name,
        provider=judge.provider,
        provider_model_id=judge.provider_model_id,
        prices=prices,
        vision=judge.vision,
    )
    return JudgeModel(model=model, template=judge.prompt or DEFAULT_PROMPT, swap=judge.swap)


def _load_examples(settings: Settings) -> tuple[str, ...]:
    """The example prompts; a file that cannot be used leaves the built-in ones (logged), not
    a server that refuses to start over what only decorates its first page."""
    try:
        return example_prompts(settings.example_prompts)
    except ExamplePromptsError as exc:
        _log.error("ARENA_EXAMPLE_PROMPTS: %s; showing the built-in examples", exc)
        return BUILTIN_EXAMPLE_PROMPTS


def _load_suites(settings: Settings) -> SuiteLoad:
    loaded = load_suites(settings.suites_dir)
    for error in loaded.errors:
        _log.error("suite not loaded: %s", error)
    return loaded


#: With an alert webhook, the database is checked this often even when nobody asks /health.
DATABASE_WATCH_S = 15.0

#: A judge that keeps failing on a matchup gives up on it after this many attempts.
AUTOJUDGE_ATTEMPTS = 3


@contextlib.asynccontextmanager
async def _autojudging(
    settings: Settings, judge: JudgeService, pool: asyncpg.Pool, pace: Limiter | None
) -> AsyncIterator[AutoJudge]:
    """The shadow auto-judge's loop, for as long as the services are open."""
    swap_factor = 2  # a swapped judgement is two calls
    queue = PostgresAutoJudgeQueue(
        pool,
        lease_s=swap_factor * settings.judge_timeout_s + 30,
        max_attempts=AUTOJUDGE_ATTEMPTS,
    )
    autojudge = AutoJudge(
        judge=judge, queue=queue, rate_per_minute=settings.autojudge_rate, pace=pace
    )
    task = asyncio.create_task(autojudge.run(), name="autojudge")
    try:
        yield autojudge
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def _background(work: Coroutine[object, object, None], name: str) -> AsyncIterator[None]:
    """``work`` as a task for as long as the services are open."""
    task = asyncio.create_task(work, name=name)
    try:
        yield
    finally:
        task.cancel()
        with contextlib.suppress(asyncio.CancelledError):
            await task


@contextlib.asynccontextmanager
async def bootstrap(settings: Settings, *, serving: bool = True) -> AsyncIterator[Services]:
    """Build every service and adapter of the process once, and close them on exit.

    The one composition root: the API's lifespan (``arena_api.app.services_lifespan``, also what
    the Reflex app runs), the CLI and the tests open the services here. The embedded database
    is started if no URL was given.

    Args:
        settings: the parsed environment.
        serving: a server starting (``False`` for a CLI command): it also warns of a roster too
            small to play, starts the shadow auto-judge, recovers the suite runs a stop cut
            short and loads the example prompts.
    """
    async with contextlib.AsyncExitStack() as stack:
        url = settings.database_url
        if url is None:
            # `arena serve` hands its children a URL; this path serves a bare `reflex run`.
            pg = stack.enter_context(embedded_postgres(settings.data_dir))
            url = pg.url
        engine = create_engine(url)
        stack.push_async_callback(engine.dispose)
        pool = await create_pool(url)
        stack.push_async_callback(pool.close)
        http = make_session()
        stack.push_async_callback(http.close)
        metrics = ArenaMetrics()
        alerts = await stack.enter_async_context(open_alerts(settings.alert_webhook_url))
        database = PostgresProbe(engine, watcher=alerts)
        if serving and alerts.enabled:
            await stack.enter_async_context(database.watching(DATABASE_WATCH_S))
        await asyncio.to_thread(detect_language, "warm the language model up")
        secret = token_secret(settings)
        if uses_dev_secret(settings):
            _log.warning(
                "MATCHUP_TOKEN_SECRET is not set: signing vote tokens with the development "
                "secret in %s. Set MATCHUP_TOKEN_SECRET (16+ characters) in production.",
                settings.data_dir / DEV_SECRET_FILE,
            )
        providers = build_registry(settings, http)
        shared = await stack.enter_async_context(_shared_state(settings, secret, pool))
        repository = PostgresRepository(engine, pool)
        votes = VoteRecorder(PostgresVotes(pool), metrics, user_cap=settings.user_vote_cap)
        arena = build_arena(
            settings,
            repository,
            votes=votes,
            providers=providers,
            observer=metrics,
            secret=secret,
            relay=shared.relay,
            join=shared.join,
            images=PostgresImages(pool),
        )
        # A model paused or resumed by the circuit breaker: the gauge, and an alert.
        arena.breaker.listeners += [metrics.breaker_changed, alerts.breaker_changed]
        await arena.start()
        stack.push_async_callback(arena.close, settings.shutdown_grace_s)
        if serving and (missing := NotEnoughModels.among(await arena.usable_models())):
            _log.warning("%s", missing.message)
        shared.start(arena)
        reads = ReadService(
            repository=repository,
            analytics=PostgresAnalytics(engine),
            paused=lambda: {p.model.id for p in arena.breaker.paused()},
            provisional=ProvisionalRule(settings.provisional_votes, settings.provisional_ci),
            reasons=arena.reasons,
        )
        chat = OpenAiChatService(
            arena=arena,
            reads=reads,
            repository=repository,
            chats=PostgresChatLinks(pool),
            votes=votes,
            listing=settings.openai_models,  # type: ignore[arg-type]
        )
        judge = JudgeService(
            arena=arena,
            repository=repository,
            votes=votes,
            providers=providers,
            judge=load_judge(settings),
            timeout_s=settings.judge_timeout_s,
            images=PostgresImages(pool),
        )
        autojudge = settings.autojudge_rate > 0 and settings.exposure == "shadow"
        if serving and autojudge and judge.judge_name:
            await stack.enter_async_context(
                _autojudging(settings, judge, pool, shared.autojudge_pace)
            )
        suites = SuiteService(
            arena=arena,
            judge=judge,
            repository=repository,
            runs=PostgresSuiteRuns(pool),
            suites=_load_suites(settings),
        )
        if serving:  # a server starting: its runs a stop cut short are interrupted
            await suites.recover()
        if serving and settings.text_retention_days > 0:
            await stack.enter_async_context(
                _background(keep_text_for(pool, settings.text_retention_days), "text retention")
            )
        stack.push_async_callback(suites.close)
        directory = PostgresUsers(pool)
        review = ReviewService(PostgresReview(pool), directory, arena.reasons, votes, arena)
        stack.push_async_callback(review.close)
        access = AccessService(
            passphrase=None if settings.passphrase is None else settings.passphrase.reveal(),
            secret=secret,
            ttl_s=settings.session_ttl_s,
            login_limits=settings.login_rate_limit,
            failures=shared.login_failures,
            single_sign_on=settings.oidc_issuer is not None,
        )
        yield Services(
            settings=settings,
            database=database,
            arena=arena,
            reads=reads,
            chat=chat,
            limiter=shared.limiter,
            metrics=metrics,
            judge=judge,
            judge_backfill=JudgeBackfill(judge=judge, rounds=PostgresBackfillRounds(pool)),
            suites=suites,
            export=VoteExport(PostgresVoteRows(pool, export_salt(settings, secret))),
            feeds=LiveFeeds(store=shared.feed_store),
            cluster=shared.cluster,
            examples=ExamplePrompts(_load_examples(settings) if serving else ()),
            alerts=alerts,
            access=access,
            identity=_identity(settings, access, directory, secret),
            users=UserAdmin(directory),
            roster=RosterAdmin(PostgresRoster(pool), providers),
            review=review,
            image_links=ImageLinks(secret, PostgresImages(pool).of_session),
        )


def _identity(
    settings: Settings, access: AccessService, directory: PostgresUsers, secret: bytes
) -> IdentityService | None:
    """Sign-in with OpenID Connect, when ``ARENA_OIDC_ISSUER`` is set."""
    if settings.oidc_issuer is None or settings.oidc_client_id is None:
        return None
    # Imported here: Authlib, joserfc and their cryptography cost memory a server without single
    # sign-on should not pay.
    from arena_api.oidc import HttpOidcProvider

    secret_value = settings.oidc_client_secret
    provider = HttpOidcProvider(
        settings.oidc_issuer,
        settings.oidc_client_id,
        None if secret_value is None else secret_value.reveal(),
        settings.oidc_scopes,
    )
    return IdentityService(
        provider,
        directory,
        access,
        OidcSettings(
            client_id=settings.oidc_client_id,
            name=settings.oidc_name or urlsplit(settings.oidc_issuer).hostname or "single sign-on",
            allowed_domains=settings.oidc_allowed_domains,
            role_claim=settings.oidc_role_claim,
            admin_values=settings.oidc_admin_values,
            reviewer_values=settings.oidc_reviewer_values,
        ),
        flow_key=hmac.new(secret, b"arena-oidc-flow", hashlib.sha256).digest(),
    )


@dataclass
class _SharedState:
    """The adapters of what one process keeps in memory and a cluster keeps in Redis."""

    limiter: Limiter
    login_failures: Limiter | None = None
    relay: ControlRelay | None = None
    join: Joiner | None = None
    cluster: Cluster | None = None
    feed_store: RedisFeeds | None = None
    #: One auto-judgement per interval over every replica (``ARENA_AUTOJUDGE_RATE``).
    autojudge_pace: Limiter | None = None
    _serve: Callable[[ArenaService], None] | None = None

    def start(self, arena: ArenaService) -> None:
        """Begin answering other replicas (once ``arena`` can act on its rounds)."""
        if self._serve is not None:
            self._serve(arena)


@contextlib.asynccontextmanager
async def _shared_state(
    settings: Settings, secret: bytes, pool: asyncpg.Pool
) -> AsyncIterator[_SharedState]:
    """In memory for one process; in Redis with ``REDIS_URL`` (``arena_api.cluster``)."""
    if settings.redis_url is None:
        yield _SharedState(limiter=RateLimiter(settings.rate_limit))
        return
    from arena_api.cluster import every, open_cluster
    from arena_api.cluster.bus import ReplicaBus
    from arena_api.cluster.control import RedisControlRelay
    from arena_api.cluster.feeds import RedisFeeds
    from arena_api.cluster.janitor import SWEEP_S, RoundJanitor
    from arena_api.cluster.join import RedisJoinBroker
    from arena_api.cluster.limits import RedisRateLimiter

    async with open_cluster(settings.redis_url, settings.cluster_timeout_ms / 1000) as cluster:
        bus = ReplicaBus(cluster)
        relay = RedisControlRelay(bus)
        await bus.start()
        sweep = RoundJanitor(bus, functools.partial(mark_lost_rounds, pool)).sweep
        janitor = asyncio.create_task(every(SWEEP_S, sweep, "round janitor"), name="janitor")
        try:
            yield _SharedState(
                limiter=RedisRateLimiter(cluster.redis, settings.rate_limit),
                login_failures=RedisRateLimiter(
                    cluster.redis, settings.login_rate_limit, name="login"
                ),
                relay=relay,
                join=RedisJoinBroker(
                    bus,
                    # Every replica must derive the same scope from the same request.
                    secret=hmac.new(secret, b"arena-join-scope", hashlib.sha256).digest(),
                    window_s=settings.join_window_ms / 1000,
                    max_pending=settings.join_max_pending,
                    max_queued=settings.join_max_queued_events,
                ),
                cluster=cluster,
                feed_store=RedisFeeds(cluster.redis),
                autojudge_pace=RedisRateLimiter(
                    cluster.redis, (Limit(1, 60.0 / settings.autojudge_rate),), name="autojudge"
                )
                if settings.autojudge_rate
                else None,
                _serve=lambda arena: relay.serve(arena.control_here),
            )
        finally:
            janitor.cancel()
            await asyncio.gather(janitor, return_exceptions=True)
            await bus.close()
