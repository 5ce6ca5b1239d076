"""What the arena page says before a first round: how the arena works and what to ask, or,
when too few models can answer, how to add them."""

from __future__ import annotations

import reflex as rx

from arena_api.core.errors import SETUP_HINT
from arena_app.formatting import code_spans
from arena_app.state.arena import ArenaState


def intro() -> rx.Component:
    """How the arena works, in two lines, above the prompt box."""
    return rx.vstack(
        rx.heading("Which answer is better?", size=rx.breakpoints(initial="5", sm="6")),
        rx.text(
            "Ask anything: two anonymous models answer side by side.",
            rx.el.br(),
            "Vote for the better answer, then see which models they were.",
            size=rx.breakpoints(initial="2", sm="3"),
            color_scheme="gray",
        ),
        spacing="1",
        width="100%",
        padding_top=rx.breakpoints(initial="0", md="1em"),
        data_testid="intro",
    )


def _example(text: rx.Var[str]) -> rx.Component:
    return rx.button(
        rx.text(text, class_name="arena-example-text"),
        on_click=ArenaState.use_example(text),
        variant="surface",
        color_scheme="gray",
        size="2",
        title=text,
        class_name="arena-example",
        data_testid="example",
    )


def examples() -> rx.Component:
    """Example prompts to start from: a click puts one in the box (nothing is sent yet)."""
    return rx.vstack(
        rx.text("Try an example", size="1", weight="medium", color_scheme="gray"),
        rx.grid(
            rx.foreach(ArenaState.examples, _example),
            columns=rx.breakpoints(initial="1", sm="2"),
            spacing="2",
            width="100%",
        ),
        spacing="2",
        width="100%",
        role="group",
        aria_label="Example prompts",
        data_testid="examples",
    )


def setup_notice() -> rx.Component:
    """Too few models can answer: what is missing and, in ``SETUP_HINT``'s words, what to do."""
    return rx.callout.root(
        rx.callout.icon(rx.icon("wrench")),
        rx.vstack(
            rx.text(ArenaState.setup_notice, weight="bold"),
            rx.markdown(code_spans(SETUP_HINT), use_raw=False, class_name="arena-setup-hint"),
            spacing="1",
            width="100%",
        ),
        color_scheme="amber",
        width="100%",
        role="status",
        data_testid="setup-notice",
    )
