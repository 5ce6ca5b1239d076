"""The Reflex app: the UI pages, with the API mounted in front of them on the same port."""

from __future__ import annotations

import contextlib
import gc
from collections.abc import AsyncIterator

import reflex as rx

from arena_api.app import services_lifespan
from arena_app import routes
from arena_app.backend import api, services
from arena_app.live import feeds, live_app
from arena_app.pages.index import index
from arena_app.pages.insights import insights_page
from arena_app.pages.shared import shared_matchup
from arena_app.pages.suites import suites_page
from arena_app.state.arena import ArenaState
from arena_app.state.insights import InsightsState
from arena_app.state.leaderboard import LeaderboardState
from arena_app.state.shared import SharedState
from arena_app.state.suites import SuitesState


@contextlib.asynccontextmanager
async def open_services() -> AsyncIterator[None]:
    """Lifespan task: the API's services live exactly as long as the Reflex server.

    Once they are open, everything start-up built (modules, pages, pools, caches) is frozen out
    of the garbage collector's reach. It lives as long as the process, yet each full collection
    walked all of it: pauses of about 100 ms, several a minute while streaming, each one
    stalling every stream in the process.
    """
    async with services_lifespan(api):
        # With several replicas, the page's feed request may reach another one.
        feeds.share(services().feed_store)
        gc.collect()
        gc.freeze()
        yield


# The API answers first, then the live feeds, then Reflex (each mounts the one before it): the
# API's middleware (access control above all) sees every request, the UI's and its sockets too.
app = rx.App(api_transformer=[live_app, api], stylesheets=["/arena.css"])
app.register_lifespan_task(open_services)
app.add_page(
    index,
    route=routes.ARENA,
    title="Arena",
    on_load=[ArenaState.on_load, LeaderboardState.load],
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
