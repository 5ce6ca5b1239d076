"""The container of the services: what ``arena_api.bootstrap.bootstrap`` builds once per process.

The HTTP routes read it with ``arena_api.routes._request.services_of(request)`` and the Reflex
states with ``arena_app.backend.services()``, both typed. Adapters it holds (the database, the
Redis of a cluster) are reached through the narrow ports below, so this module, like the rest of
the service layer, imports no driver and no web framework.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version
from typing import Protocol

from arena_api.core.ratelimit import Limiter
from arena_api.metrics import ArenaMetrics
from arena_api.services.access import AccessService
from arena_api.services.alerts import Alerts
from arena_api.services.examples import ExamplePrompts
from arena_api.services.export import VoteExport
from arena_api.services.identity import IdentityService
from arena_api.services.image_links import ImageLinks
from arena_api.services.judge import JudgeService
from arena_api.services.judge_backfill import JudgeBackfill
from arena_api.services.live_feeds import LiveFeeds
from arena_api.services.openai_chat import OpenAiChatService
from arena_api.services.reads import ReadService
from arena_api.services.review import ReviewService
from arena_api.services.roster import RosterAdmin
from arena_api.services.rounds import ArenaService
from arena_api.services.suites import SuiteService
from arena_api.services.users import UserAdmin
from arena_api.settings import Settings

__all__ = ["DatabaseProbe", "DatabaseState", "Services", "SharedStore", "package_version"]


class DatabaseState(Protocol):
    """Whether the database answers, and its schema's revision against the code's."""

    @property
    def reachable(self) -> bool: ...

    @property
    def current(self) -> str | None: ...

    @property
    def head(self) -> str: ...


class DatabaseProbe(Protocol):
    """Checks the database (``arena_api.db.status``)."""

    async def check(self) -> DatabaseState: ...


class SharedStore(Protocol):
    """The Redis the replicas of a cluster share (``arena_api.cluster.Cluster``)."""

    async def reachable(self) -> bool: ...


def package_version() -> str:
    """The installed distribution's version."""
    try:
        return version("arena")
    except PackageNotFoundError:  # running from a source tree that was never installed
        return "0.0.0+source"


@dataclass
class Services:
    """Everything a request may need, created once per process and closed on shutdown."""

    settings: Settings
    database: DatabaseProbe
    arena: ArenaService
    reads: ReadService
    chat: OpenAiChatService
    limiter: Limiter
    metrics: ArenaMetrics
    judge: JudgeService
    #: ``arena judge backfill``: the judge asked about rounds people voted on.
    judge_backfill: JudgeBackfill
    suites: SuiteService
    export: VoteExport
    access: AccessService
    #: The live feeds of the arena page's rounds (``/_arena/live/{ticket}``).
    feeds: LiveFeeds
    #: The shared Redis of a cluster of replicas (``REDIS_URL``); ``None`` in one process.
    cluster: SharedStore | None = None
    #: What the arena page offers to ask before a first round (``ARENA_EXAMPLE_PROMPTS``).
    examples: ExamplePrompts = field(default_factory=ExamplePrompts)
    #: The operator's alerts (``ARENA_ALERT_WEBHOOK_URL``); only logged without a webhook.
    alerts: Alerts = field(default_factory=Alerts)
    #: Sign-in with OpenID Connect (``ARENA_OIDC_ISSUER``); ``None`` when off.
    identity: IdentityService | None = None
    #: Users, roles, their API tokens and the audit log (the admin routes, the edge).
    users: UserAdmin | None = None
    #: The roster as the admin console changes it.
    roster: RosterAdmin | None = None
    #: Expert review queues.
    review: ReviewService | None = None
    #: Signed links to the prompts' images, for the page that played the round.
    image_links: ImageLinks | None = None
    version: str = field(default_factory=package_version)
    started_at: float = field(default_factory=time.time)
