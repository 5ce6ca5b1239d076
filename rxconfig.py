"""Reflex configuration: the UI package is `arena_app`; everything else comes from settings.

State lives in memory (one server process): the default disk manager pickles every state change
to disk, which a streaming round does dozens of times a second. With REDIS_URL (several replicas
behind a load balancer) it lives in Redis, so a page whose event socket reconnects to another
replica keeps its state, and a replica's updates reach a socket another one holds (Reflex's own
Redis state and token managers; see DESIGN.md, "Scale beyond one machine").
"""

import os

import reflex as rx
from reflex.plugins.sitemap import SitemapPlugin

_REDIS_URL = os.environ.get("REDIS_URL") or os.environ.get("REFLEX_REDIS_URL") or None

config = rx.Config(
    app_name="arena_app",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    redis_url=_REDIS_URL,
    state_manager_mode=(
        rx.constants.StateManagerMode.REDIS if _REDIS_URL else rx.constants.StateManagerMode.MEMORY
    ),
    disable_plugins=[SitemapPlugin],
    # Solid panels: translucent ones (Radix's default) blur what lies behind every card with a
    # 64 px backdrop filter, redrawn on each frame a card's content changes. While two answers
    # stream into their cards, that doubled the page's token latency at p95 (see
    # benchmarks/ui_latency.py).
    plugins=[
        rx.plugins.RadixThemesPlugin(
            theme=rx.theme(accent_color="indigo", panel_background="solid")
        )
    ],
)
