"""The frame of every page: navigation, the theme toggle (remembered by the browser) and, in a
demo, the banner that says the answers are canned."""

from __future__ import annotations

import reflex as rx

from arena_app import routes
from arena_app.state.access import AccessState
from arena_app.state.frame import FrameState


def _nav_link(label: str | rx.Var, href: str) -> rx.Component:
    return rx.link(label, href=href, size="3", weight="medium", underline="none")


def _demo_banner() -> rx.Component:
    """``ARENA_DEMO=1``: the models are the mock ones, so nobody takes their answers (or the
    leaderboard) for real models'."""
    return rx.hstack(
        rx.badge("demo: mock models", color_scheme="amber", variant="solid", size="2"),
        rx.text(
            "The answers are canned text from mock models. To compare real ones, set ",
            rx.code("ARENA_MODELS", size="1"),
            " or mount a roster (",
            rx.code("docs/providers.md", size="1"),
            ").",
            size="1",
        ),
        align="center",
        spacing="2",
        wrap="wrap",
        padding_x=rx.breakpoints(initial="1em", sm="1.5em"),
        padding_y="0.4em",
        background_color=rx.color("amber", 3),
        border_bottom=f"1px solid {rx.color('amber', 6)}",
        width="100%",
        role="note",
        aria_label="Demo",
        data_testid="demo-banner",
    )


def layout(*children: rx.Component) -> rx.Component:
    return rx.box(
        rx.cond(FrameState.demo, _demo_banner()),
        rx.hstack(
            rx.hstack(
                rx.icon("swords", size=22),
                rx.heading("Arena", size="5"),
                align="center",
                spacing="2",
            ),
            _nav_link("Arena", routes.ARENA),
            _nav_link("Insights", routes.INSIGHTS),
            _nav_link("Suites", routes.SUITES),
            rx.cond(
                (AccessState.role == "reviewer") | (AccessState.role == "admin"),
                _nav_link("Review", routes.REVIEW),
            ),
            rx.cond(
                AccessState.role != "",
                _nav_link(rx.cond(AccessState.role == "admin", "Admin", "Tokens"), routes.ADMIN),
            ),
            rx.spacer(),
            rx.cond(
                AccessState.anonymous,
                rx.link("Sign in", href="/login", reload_document=True, size="2"),
                rx.cond(
                    AccessState.private,
                    # A full page load: /logout is the server's page, not one of the UI's routes.
                    rx.link("Sign out", href="/logout", reload_document=True, size="2"),
                ),
            ),
            rx.color_mode.button(
                aria_label="Switch between light and dark", data_testid="theme-toggle"
            ),
            align="center",
            # A phone (390 px) fits the brand, three links and the toggle only when they close up.
            spacing=rx.breakpoints(initial="3", sm="5"),
            wrap="wrap",
            padding_x=rx.breakpoints(initial="1em", sm="1.5em"),
            padding_y="0.75em",
            border_bottom=f"1px solid {rx.color('gray', 5)}",
            width="100%",
            on_mount=[AccessState.check, FrameState.check],
        ),
        rx.box(*children, padding="1.5em", max_width="1400px", margin="0 auto"),
        width="100%",
    )
