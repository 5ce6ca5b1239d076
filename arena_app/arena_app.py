"""The Reflex app: the UI pages, with the API mounted in front of them on the same port."""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator

import reflex as rx

from arena_api.app import create_api, services_lifespan
from arena_api.routes._browser import credentialed_origins
from arena_api.settings import load_settings
from arena_app import routes, sockets
from arena_app.pages.admin import admin_page
from arena_app.pages.index import index
from arena_app.pages.insights import insights_page
from arena_app.pages.review import review_page
from arena_app.pages.shared import shared_matchup
from arena_app.pages.suites import suites_page
from arena_app.state.admin import AdminState
from arena_app.state.arena import ArenaState
from arena_app.state.insights import InsightsState
from arena_app.state.leaderboard import LeaderboardState
from arena_app.state.review import ReviewState
from arena_app.state.shared import SharedState
from arena_app.state.suites import SuitesState
from arena_app.state.vote_reasons import VoteReasonsState

# Reflex needs the API's Starlette app now, to mount itself under it; its services are built
# only when the server starts (``serve_api``).
api = create_api()


@contextlib.asynccontextmanager
async def serve_api() -> AsyncIterator[None]:
    """Lifespan task: the API's services (``bootstrap``) live exactly as long as the Reflex
    server. A mounted app's own lifespan never runs, so the Reflex one runs it; it also tunes
    the garbage collector, once this module's pages are built too. Before any socket
    connects, a moved socket's session is made to survive its move (``sockets``)."""
    sockets.install(app, credentialed_origins(load_settings().cors_origins))
    async with services_lifespan(api):
        yield


# CORS is the API's to decide, once, for every answer (``BrowserBoundary``): Reflex would stack
# its own layer around each app it mounts, three in all, each letting any origin call with the
# person's cookies.
rx.App._add_cors = staticmethod(lambda api: None)  # type: ignore[method-assign]

# The API answers first, then Reflex (the API mounts it): the API's middleware (access control
# above all) sees every request, the UI's, its sockets and the live feeds too.
app = rx.App(api_transformer=api, stylesheets=["/arena.css"])
app.register_lifespan_task(serve_api)
app.add_page(
    index,
    route=routes.ARENA,
    title="Arena",
    on_load=[ArenaState.on_load, LeaderboardState.load, VoteReasonsState.load],
)
app.add_page(
    lambda: rx.fragment(),
    route=routes.INSIGHTS,
    title="Insights · Arena",
    on_load=rx.redirect(routes.insights_tab("rankings")),
)
app.add_page(
    shared_matchup,
    route=routes.SHARED_MATCHUP,
    title="A matchup · Arena",
    on_load=SharedState.load,
)
app.add_page(
    suites_page,
    route=routes.SUITES,
    title="Suites · Arena",
    on_load=SuitesState.load,
)
app.add_page(admin_page, route=routes.ADMIN, title="Admin · Arena", on_load=AdminState.load)
app.add_page(review_page, route=routes.REVIEW, title="Review · Arena", on_load=ReviewState.load)
_LOADERS = {
    "rankings": InsightsState.load_rankings,
    "head-to-head": InsightsState.load_head_to_head,
    "style": InsightsState.load_style,
    "activity": InsightsState.load_activity,
}
for tab, label in routes.INSIGHT_TABS:
    app.add_page(
        insights_page(tab),
        route=routes.insights_tab(tab),
        title=f"{label} · Insights · Arena",
        on_load=_LOADERS[tab],
    )
