"""Reflex configuration: the UI package is `arena_app`; everything else comes from settings.

State lives in memory (one server process): the default disk manager pickles every state change
to disk, which a streaming round does dozens of times a second. Several replicas would set
REFLEX_REDIS_URL and use Redis instead (see DESIGN.md, "Scale beyond one machine").
"""

import os

import reflex as rx
from reflex.plugins.sitemap import SitemapPlugin

config = rx.Config(
    app_name="arena_app",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    state_manager_mode=(
        rx.constants.StateManagerMode.REDIS
        if os.environ.get("REFLEX_REDIS_URL")
        else rx.constants.StateManagerMode.MEMORY
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
