"""Reflex configuration: the UI package is `arena_app`; everything else comes from settings."""

import reflex as rx
from reflex.plugins.sitemap import SitemapPlugin

config = rx.Config(
    app_name="arena_app",
    telemetry_enabled=False,
    show_built_with_reflex=False,
    disable_plugins=[SitemapPlugin],
    plugins=[rx.plugins.RadixThemesPlugin(theme=rx.theme(accent_color="indigo"))],
)
