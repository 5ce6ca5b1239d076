"""The only wiring point: builds the shared services and the Starlette app of the API.

The same ``create_api()`` app is served two ways:

* mounted into Reflex through ``rx.App(api_transformer=...)`` (production, one port), where the
  Reflex lifespan opens the services (``services_lifespan``), since a mounted app's own lifespan
  never runs;
* on its own under any ASGI server (tests, benchmarks), where its own lifespan does the same.
"""

from __future__ import annotations

import asyncio
import contextlib
import functools
import gc
import hashlib
import hmac
import logging
import time
import uuid
from collections.abc import AsyncIterator, Callable
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import TYPE_CHECKING

import aiohttp
import asyncpg
from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from arena_api.core.arena import ArenaCore
from arena_api.core.control import ControlRelay
from arena_api.core.errors import NotEnoughModels
from arena_api.core.join import JoinBroker, Joiner
from arena_api.core.judging import DEFAULT_PROMPT
from arena_api.core.matchmaking import make_matchmaker
from arena_api.core.models import ModelEntry, Prices
from arena_api.core.ports import NoObserver, RoundObserver
from arena_api.core.ratelimit import Limit, Limiter, RateLimiter
from arena_api.core.tokens import MatchupTokenService
from arena_api.db.analytics import PostgresAnalytics
from arena_api.db.chats import PostgresChatLinks
from arena_api.db.engine import create_engine, embedded_postgres
from arena_api.db.judgements import PostgresAutoJudgeQueue
from arena_api.db.lost import mark_lost_rounds
from arena_api.db.repository import PostgresRepository, create_pool
from arena_api.db.suites import PostgresSuiteRuns
from arena_api.db.votes import PostgresVotes
from arena_api.examples import BUILTIN_EXAMPLE_PROMPTS, ExamplePromptsError, example_prompts
from arena_api.keys import DEV_SECRET_FILE, export_salt, token_secret, uses_dev_secret
from arena_api.language import detect_language
from arena_api.metrics import ArenaMetrics
from arena_api.providers import ProviderRegistry, build_registry, make_session
from arena_api.roster import RosterError, roster_of
from arena_api.routes import analytics as analytics_routes
from arena_api.routes import arena as arena_routes
from arena_api.routes import chat as chat_routes
from arena_api.routes import control as control_routes
from arena_api.routes import errors, health, lifecycle, login
from arena_api.routes import export as export_routes
from arena_api.routes import judge as judge_routes
from arena_api.routes import metrics as metrics_routes
from arena_api.routes import models as model_routes
from arena_api.routes import openapi as openapi_routes
from arena_api.routes import suites as suite_routes
from arena_api.routes._access import AccessControl
from arena_api.routes._frontend import BackendUrlRewrite
from arena_api.routes._metrics import RequestMetrics
from arena_api.routes._proxy import ForwardedHeaders
from arena_api.routes._ratelimit import RateLimits
from arena_api.services import ArenaService, OpenAiChatService, ReadService, RoundPolicy
from arena_api.services.access import AccessService
from arena_api.services.autojudge import AutoJudge
from arena_api.services.examples import ExamplePrompts
from arena_api.services.export import VoteExport
from arena_api.services.judge import JudgeModel, JudgeService
from arena_api.services.suites import SuiteService
from arena_api.services.votes import VoteRecorder
from arena_api.settings import Settings, load_settings
from arena_api.suites import SuiteLoad, load_suites

if TYPE_CHECKING:
    from arena_api.cluster import Cluster
    from arena_api.cluster.feeds import RedisFeeds

__all__ = [
    "Services",
    "build_arena",
    "create_api",
    "open_services",
    "services_lifespan",
]

_log = logging.getLogger(__name__)


def _version() -> str:
    try:
        return version("arena")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


@dataclass
class Services:
    """Everything a request may need, created once per process and closed on shutdown."""

    settings: Settings
    engine: AsyncEngine
    arena: ArenaService
    reads: ReadService
    chat: OpenAiChatService
    limiter: Limiter
    metrics: ArenaMetrics
    judge: JudgeService
    suites: SuiteService
    export: VoteExport
    access: AccessService
    #: The shared Redis of a cluster of replicas (``REDIS_URL``); ``None`` in one process.
    cluster: Cluster | None = None
    #: Where the UI's live feeds are shared with the other replicas (``arena_app.live``).
    feed_store: RedisFeeds | None = None
    #: What the arena page offers to ask before a first round (``ARENA_EXAMPLE_PROMPTS``).
    examples: ExamplePrompts = field(default_factory=ExamplePrompts)
    version: str = field(default_factory=_version)
    started_at: float = field(default_factory=time.time)


def build_arena(
    settings: Settings,
    engine: AsyncEngine,
    pool: asyncpg.Pool,
    http: aiohttp.ClientSession,
    observer: RoundObserver | None = None,
    secret: bytes | None = None,
    providers: ProviderRegistry | None = None,
    relay: ControlRelay | None = None,
    join: Joiner | None = None,
    votes: VoteRecorder | None = None,
) -> ArenaService:
    """Wire ArenaService from settings: the one place that picks the adapters."""
    return ArenaService(
        repository=PostgresRepository(engine, pool),
        votes=votes or VoteRecorder(PostgresVotes(pool), observer or NoObserver()),
        providers=providers or build_registry(settings, http),
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
    )


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
async def open_services(settings: Settings, *, serving: bool = True) -> AsyncIterator[Services]:
    """Create the shared services; start the embedded database if no URL was given."""
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
        votes = VoteRecorder(PostgresVotes(pool), metrics)
        arena = build_arena(
            settings,
            engine,
            pool,
            http,
            metrics,
            secret,
            providers,
            shared.relay,
            shared.join,
            votes,
        )
        await arena.start()
        stack.push_async_callback(arena.close, settings.shutdown_grace_s)
        if serving and (missing := NotEnoughModels.among(await arena.usable_models())):
            _log.warning("%s", missing.message)
        shared.start(arena)
        repository = PostgresRepository(engine, pool)
        reads = ReadService(repository=repository, analytics=PostgresAnalytics(engine))
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
        stack.push_async_callback(suites.close)
        yield Services(
            settings=settings,
            engine=engine,
            arena=arena,
            reads=reads,
            chat=chat,
            limiter=shared.limiter,
            metrics=metrics,
            judge=judge,
            suites=suites,
            export=VoteExport(pool, export_salt(settings, secret)),
            cluster=shared.cluster,
            feed_store=shared.feed_store,
            examples=ExamplePrompts(_load_examples(settings) if serving else ()),
            access=AccessService(
                passphrase=None if settings.passphrase is None else settings.passphrase.reveal(),
                secret=secret,
                ttl_s=settings.session_ttl_s,
                login_limits=settings.login_rate_limit,
                failures=shared.login_failures,
            ),
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


#: Allocations (net of frees) between two young-generation collections; CPython's default is 700.
GC_YOUNG_THRESHOLD = 20_000


def tune_gc() -> None:
    """Collect less often in a serving process, and never scan what start-up built again.

    Relaying hundreds of answers keeps many short-lived containers (JSON chunks, futures) in
    flight, so with CPython's defaults the cyclic collector ran about 35 times a second and its
    full collections, scanning every object that imports and start-up created, paused the event
    loop for up to 200 ms: a stall every voter saw (``benchmarks/relay_http.py``). Freezing
    moves everything alive now out of the collector's sight; the higher young threshold makes
    collections rarer without letting garbage grow unbounded.
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


@contextlib.asynccontextmanager
async def services_lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the services for ``app`` (stored on ``app.state.services``) for the app's lifetime."""
    settings: Settings = getattr(app.state, "settings", None) or load_settings()
    async with open_services(settings) as services:
        tune_gc()
        app.state.services = services
        try:
            yield
        finally:
            del app.state.services


def api_routes() -> list[BaseRoute]:
    """Every route of the API, in matching order; the JSON-404 catch-alls come last."""
    return [
        *health.routes,
        *openapi_routes.routes,
        *login.routes,
        *lifecycle.routes,
        *metrics_routes.routes,
        *chat_routes.routes,
        *arena_routes.routes,
        *judge_routes.routes,
        *suite_routes.routes,
        *export_routes.routes,
        *analytics_routes.routes,
        *control_routes.routes,
        *model_routes.routes,
        *errors.routes,
    ]


def create_api(settings: Settings | None = None, *, standalone: bool = False) -> Starlette:
    """Build the API app.

    Args:
        settings: the parsed environment; read from ``os.environ`` when the lifespan starts if
            omitted.
        standalone: give the app its own lifespan (when it is not mounted into Reflex).
    """
    # The middleware needs its variables now; the services read theirs when the lifespan starts.
    edge = settings if settings is not None else load_settings()
    app = Starlette(
        routes=api_routes(),
        middleware=[
            Middleware(ForwardedHeaders, trusted=edge.trust_proxy),
            Middleware(RequestMetrics),
            Middleware(
                AccessControl,
                tokens=tuple(t.reveal().encode() for t in edge.api_tokens),
                sessions=edge.passphrase is not None,
            ),
            Middleware(RateLimits),
            Middleware(BackendUrlRewrite),
        ],
        exception_handlers=errors.exception_handlers,
        lifespan=services_lifespan if standalone else None,
    )
    app.state.settings = settings
    return app
