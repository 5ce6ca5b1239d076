"""The insights page's "Why people voted" panel: the reasons ticked with the votes each model
won, as one stacked bar per model (every name printed, the chart as tall as its rows)."""

from __future__ import annotations

import reflex as rx

from arena_app.state.insights import InsightsState
from arena_app.state.reason_counts import ReasonCountsState

#: Pixels per model row, and what the chart needs besides its rows (axis, a legend of up to two
#: lines, margins).
ROW_PX = 24
FRAME_PX = 96
TICK = {"fontSize": 12}


def _bars() -> rx.Component:
    """One bar segment per reason, stacked, in the reason's colour."""
    return rx.foreach(
        ReasonCountsState.series,
        lambda reason: rx.recharts.bar(
            data_key=reason["key"],
            name=reason["label"],
            fill=reason["color"],
            stack_id="reasons",
            bar_size=14,
            is_animation_active=False,
        ),
    )


def _chart() -> rx.Component:
    rows = ReasonCountsState.rows
    return rx.recharts.bar_chart(
        _bars(),
        rx.recharts.x_axis(type_="number", orientation="top", tick=TICK, allow_decimals=False),
        rx.recharts.y_axis(
            data_key="name",
            type_="category",
            width=InsightsState.names_px,
            interval=0,
            tick=TICK,
        ),
        # In the offered order (recharts sorts a legend by name unless told not to), measured
        # rather than of a fixed height: on a phone it wraps onto a second line.
        rx.recharts.legend(vertical_align="top", custom_attrs={"itemSorter": rx.Var.create(None)}),
        rx.recharts.graphing_tooltip(cursor=False),
        data=rows,
        layout="vertical",
        width="100%",
        height=(rows.length() * ROW_PX + FRAME_PX).to(int),
        margin={"top": 4, "right": 16, "bottom": 4, "left": 0},
    )


def reason_counts_panel() -> rx.Component:
    """The panel; it reads its counts when it mounts and again whenever the dashboard's cut
    (whose votes, which prompts) changes: its box is keyed by that cut, so a new cut mounts the
    card afresh."""
    card = rx.card(
        rx.vstack(
            rx.heading("Why people voted", size="3"),
            rx.cond(
                ReasonCountsState.rows.length() > 0,
                rx.vstack(
                    rx.text(ReasonCountsState.caption, size="2", color_scheme="gray"),
                    _chart(),
                    width="100%",
                ),
                rx.text(
                    "No vote with a reason yet: the chips under the vote buttons say why.",
                    size="2",
                    color_scheme="gray",
                ),
            ),
            rx.cond(
                ReasonCountsState.undecided != "",
                rx.text(
                    "With ties, both-bad votes and skips (no winner): ",
                    ReasonCountsState.undecided,
                    size="1",
                    color_scheme="gray",
                    data_testid="reasons-undecided",
                ),
            ),
            width="100%",
        ),
        on_mount=ReasonCountsState.load,
        width="100%",
        data_testid="card-why-people-voted",
    )
    return rx.box(card, key=InsightsState.votes + "|" + InsightsState.category, width="100%")
