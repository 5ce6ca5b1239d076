"""The only wiring point: builds the shared services and the Starlette app of the API.

The same ``create_api()`` app is served two ways:

* mounted into Reflex through ``rx.App(api_transformer=...)`` (production, one port), where the
  Reflex lifespan opens the services (``services_lifespan``), since a mounted app's own lifespan
  never runs;
* on its own under any ASGI server (tests, benchmarks), where its own lifespan does the same.
"""

from __future__ import annotations

import contextlib
import logging
import time
from collections.abc import AsyncIterator
from dataclasses import dataclass, field
from importlib.metadata import PackageNotFoundError, version

from sqlalchemy.ext.asyncio import AsyncEngine
from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from arena_api.db.engine import create_engine, embedded_postgres
from arena_api.routes import errors, health
from arena_api.routes._frontend import BackendUrlRewrite
from arena_api.service import ArenaService
from arena_api.settings import Settings, load_settings

__all__ = ["Services", "create_api", "services_lifespan"]

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
    version: str = field(default_factory=_version)
    started_at: float = field(default_factory=time.time)


@contextlib.asynccontextmanager
async def open_services(settings: Settings) -> AsyncIterator[Services]:
    """Create the shared services; start the embedded database if no URL was given."""
    async with contextlib.AsyncExitStack() as stack:
        url = settings.database_url
        if url is None:
            # `arena serve` hands its children a URL; this path serves a bare `reflex run`.
            pg = stack.enter_context(embedded_postgres(settings.data_dir))
            url = pg.url
        engine = create_engine(url)
        stack.push_async_callback(engine.dispose)
        yield Services(settings=settings, engine=engine, arena=ArenaService(engine))


@contextlib.asynccontextmanager
async def services_lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the services for ``app`` (stored on ``app.state.services``) for the app's lifetime."""
    settings: Settings = getattr(app.state, "settings", None) or load_settings()
    async with open_services(settings) as services:
        app.state.services = services
        try:
            yield
        finally:
            del app.state.services


def api_routes() -> list[BaseRoute]:
    """Every route of the API, in matching order; the JSON-404 catch-alls come last."""
    return [*health.routes, *errors.routes]


def create_api(settings: Settings | None = None, *, standalone: bool = False) -> Starlette:
    """Build the API app.

    Args:
        settings: the parsed environment; read from ``os.environ`` when the lifespan starts if
            omitted.
        standalone: give the app its own lifespan (when it is not mounted into Reflex).
    """
    app = Starlette(
        routes=api_routes(),
        middleware=[Middleware(BackendUrlRewrite)],
        exception_handlers=errors.exception_handlers,
        lifespan=services_lifespan if standalone else None,
    )
    app.state.settings = settings
    return app
