"""The only wiring point of the API: its Starlette app, its routes and its lifespan.

The same ``create_api()`` app is served two ways:

* mounted into Reflex through ``rx.App(api_transformer=...)`` (production, one port), where the
  Reflex app runs ``services_lifespan`` as a lifespan task, since a mounted app's own lifespan
  never runs;
* on its own under any ASGI server (tests, benchmarks), where its own lifespan does the same.

Either way the services are built by ``arena_api.bootstrap.bootstrap``, once, when the lifespan
starts; building the app builds none of them.
"""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.routing import BaseRoute

from arena_api.bootstrap import bootstrap
from arena_api.routes import admin as admin_routes
from arena_api.routes import analytics as analytics_routes
from arena_api.routes import arena as arena_routes
from arena_api.routes import chat as chat_routes
from arena_api.routes import control as control_routes
from arena_api.routes import errors, health, lifecycle, login
from arena_api.routes import export as export_routes
from arena_api.routes import images as image_routes
from arena_api.routes import judge as judge_routes
from arena_api.routes import live as live_routes
from arena_api.routes import metrics as metrics_routes
from arena_api.routes import models as model_routes
from arena_api.routes import openapi as openapi_routes
from arena_api.routes import review as review_routes
from arena_api.routes import suites as suite_routes
from arena_api.routes._access import AccessControl
from arena_api.routes._browser import BrowserBoundary
from arena_api.routes._frontend import BackendUrlRewrite
from arena_api.routes._keepalive import DRAIN_FACTOR, KeepAlive
from arena_api.routes._metrics import RequestMetrics
from arena_api.routes._proxy import ForwardedHeaders
from arena_api.routes._ratelimit import RateLimits
from arena_api.routes._request import attach_services, detach_services
from arena_api.settings import Settings, load_settings

__all__ = ["api_routes", "create_api", "services_lifespan", "tune_gc"]


#: Allocations (net of frees) between two young-generation collections; CPython's default is 700.
GC_YOUNG_THRESHOLD = 20_000


def tune_gc() -> None:
    """Collect less often in a serving process, and never scan what start-up built again.

    Relaying hundreds of answers keeps many short-lived containers (JSON chunks, futures) in
    flight, so with CPython's defaults the cyclic collector ran about 35 times a second and its
    full collections, scanning every object that imports and start-up created, paused the event
    loop for up to 200 ms: a stall every voter saw (``benchmarks/relay_http.py``). What start-up
    built (modules, the Reflex pages, pools, caches) lives as long as the process, yet each full
    collection walked all of it: pauses of about 100 ms, several a minute while streaming, each
    one stalling every stream in the process. Freezing moves everything alive now out of the
    collector's sight, so it is called once, when everything is built (``services_lifespan``);
    the higher young threshold makes collections rarer without letting garbage grow unbounded.
    """
    gc.collect()
    gc.freeze()
    _, middle, old = gc.get_threshold()
    gc.set_threshold(GC_YOUNG_THRESHOLD, middle, old)


@contextlib.asynccontextmanager
async def services_lifespan(app: Starlette) -> AsyncIterator[None]:
    """Open the services for ``app`` (``bootstrap``) for the app's lifetime.

    The routes read them with ``services_of(request)``, the Reflex states with
    ``arena_app.backend.services()``. Once they are open, everything start-up built (modules,
    the Reflex pages, pools, caches) is frozen out of the garbage collector's reach
    (``tune_gc``): this is the last step of a start, and the only place that tunes it.
    """
    given = getattr(app.state, "settings", None)
    settings = given if isinstance(given, Settings) else load_settings()
    async with bootstrap(settings) as services:
        attach_services(app, services)
        tune_gc()
        try:
            yield
        finally:
            detach_services(app)


def api_routes() -> list[BaseRoute]:
    """Every route of the API, in matching order; the JSON-404 catch-alls come last."""
    return [
        *health.routes,
        *openapi_routes.routes,
        *login.routes,
        *admin_routes.routes,
        *review_routes.routes,
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
        # The arena page's live feeds are the UI's own route, no operation of the API.
        routes=[*api_routes(), *live_routes.routes, *image_routes.routes],
        middleware=[
            # Outermost: whatever answers before reading the body leaves the connection usable.
            Middleware(KeepAlive, drain_bytes=DRAIN_FACTOR * edge.max_body_bytes),
            Middleware(ForwardedHeaders, trusted=edge.trust_proxy),
            # CORS and the security headers, on every answer (the UI's pages and files too).
            Middleware(
                BrowserBoundary,
                cors_origins=edge.cors_origins,
                frame_ancestors=edge.frame_ancestors,
            ),
            Middleware(RequestMetrics),
            Middleware(
                AccessControl,
                tokens=tuple(t.reveal().encode() for t in edge.api_tokens),
                sessions=edge.passphrase is not None or edge.oidc_issuer is not None,
                users=edge.oidc_issuer is not None,
                anonymous=edge.oidc_issuer is not None and edge.oidc_anonymous,
            ),
            Middleware(RateLimits),
            Middleware(BackendUrlRewrite),
        ],
        exception_handlers=errors.exception_handlers,
        lifespan=services_lifespan if standalone else None,
    )
    app.state.settings = settings
    return app
