"""The start page. The arena itself arrives with the arena core; this page proves the stack."""

from __future__ import annotations

import reflex as rx

from arena_app.state.roster import RosterState


def index() -> rx.Component:
    return rx.container(
        rx.vstack(
            rx.heading("Arena", size="8"),
            rx.text("A self-hosted, blind, side-by-side LLM arena."),
            rx.cond(
                RosterState.loaded,
                rx.vstack(
                    rx.text(
                        RosterState.model_names.length().to_string() + " models in the roster",
                        data_testid="roster-count",
                    ),
                    rx.foreach(RosterState.model_names, lambda name: rx.badge(name)),
                ),
                rx.text("Connecting…", data_testid="roster-loading"),
            ),
            spacing="4",
            padding_y="3em",
        )
    )
