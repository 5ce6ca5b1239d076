"""``/m/{id}``: a voted matchup's prompt, both answers and who gave them."""

from __future__ import annotations

import reflex as rx

from arena_app.components.layout import layout
from arena_app.components.panes import answer
from arena_app.state.shared import SharedState


def _answer(item: rx.Var[dict[str, str]]) -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(rx.badge("Model " + item["slot"]), rx.text(item["name"], weight="bold")),
            rx.cond(item["error"] != "", rx.callout(item["error"], color_scheme="red", size="1")),
            answer(item["content"]),
            width="100%",
        ),
        width="100%",
    )


def shared_matchup() -> rx.Component:
    return layout(
        rx.cond(
            SharedState.found,
            rx.vstack(
                rx.heading(SharedState.prompt, size="5", data_testid="shared-prompt"),
                rx.badge(SharedState.outcome, size="2", data_testid="shared-outcome"),
                rx.grid(
                    rx.foreach(SharedState.answers, _answer),
                    columns=rx.breakpoints(initial="1", md="2"),
                    spacing="4",
                    width="100%",
                ),
                spacing="4",
                width="100%",
            ),
            rx.cond(
                SharedState.loaded,
                rx.callout(
                    "No voted matchup with this id.", icon="info", data_testid="shared-missing"
                ),
            ),
        )
    )
