"""The Reflex app: the UI pages, with the API mounted in front of them on the same port."""

from __future__ import annotations

import reflex as rx

from arena_api.app import services_lifespan
from arena_app import routes
from arena_app.backend import api
from arena_app.pages.index import index
from arena_app.state.arena import ArenaState
from arena_app.state.leaderboard import LeaderboardState


def open_services():  # type: ignore[no-untyped-def]
    """Lifespan task: the API's services live exactly as long as the Reflex server."""
    return services_lifespan(api)


app = rx.App(api_transformer=api, stylesheets=["/arena.css"])
app.register_lifespan_task(open_services)
app.add_page(
    index,
    route=routes.ARENA,
    title="Arena",
    on_load=[ArenaState.on_load, LeaderboardState.load],
)
