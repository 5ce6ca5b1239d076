"""The compact leaderboard table beside the arena."""

from __future__ import annotations

import reflex as rx

from arena_app.state.leaderboard import NO_GAMES, REFRESH_MS, LeaderboardState


def _row(row: rx.Var[dict[str, str]]) -> rx.Component:
    return rx.table.row(
        rx.table.cell(row["rank"], white_space="nowrap"),
        rx.table.cell(
            row["name"],
            # An icon after the name, not a word: the compact table has no room to spare.
            rx.cond(
                row["paused"] != "",
                rx.tooltip(
                    rx.icon(
                        "circle-pause",
                        size=13,
                        color=rx.color("amber", 11),
                        aria_label="paused",
                        data_testid="paused",
                        margin_left="0.3em",
                        vertical_align="-2px",
                        display="inline-block",
                    ),
                    content="Paused: it failed repeatedly; rounds leave it out until it is "
                    "tried again.",
                ),
            ),
            rx.cond(
                row["status"] != "",
                rx.tooltip(
                    rx.badge(
                        row["status"],
                        size="1",
                        color_scheme="gray",
                        variant="outline",
                        margin_left="0.4em",
                        data_testid="status",
                    ),
                    content=row["status_note"],
                ),
            ),
            rx.cond(
                row["provisional"] != "",
                rx.tooltip(
                    rx.badge(
                        "provisional",
                        size="1",
                        color_scheme="gray",
                        variant="soft",
                        margin_left="0.4em",
                        data_testid="provisional",
                    ),
                    content=row["provisional"],
                ),
            ),
        ),
        rx.cond(
            row["score"] == NO_GAMES,
            # Muted, over the score and style columns (neither has a value yet): one line.
            rx.table.cell(
                rx.text(NO_GAMES, as_="span", color_scheme="gray", white_space="nowrap"),
                col_span=2,
            ),
            rx.fragment(rx.table.cell(row["score"]), rx.table.cell(row["style"])),
        ),
        rx.table.cell(row["games"]),
    )


def leaderboard() -> rx.Component:
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Leaderboard", size="4"),
                rx.spacer(),
                rx.cond(
                    LeaderboardState.rated,
                    rx.text("rating ± 95% CI", size="1", color_scheme="gray"),
                    rx.text("win rate (no fit yet)", size="1", color_scheme="gray"),
                ),
                width="100%",
            ),
            rx.text(
                rx.switch(
                    checked=LeaderboardState.include_named,
                    on_change=LeaderboardState.set_include_named,
                    size="1",
                    color_scheme="indigo",
                    data_testid="include-named",
                ),
                " Count side-by-side votes",
                as_="label",
                size="1",
                color_scheme="gray",
            ),
            rx.table.root(
                rx.table.header(
                    rx.table.row(
                        *(
                            rx.table.column_header_cell(name)
                            for name in ("#", "Model", "Score", "Style", "Games")
                        )
                    )
                ),
                rx.table.body(rx.foreach(LeaderboardState.rows, _row)),
                size="1",
                width="100%",
                data_testid="leaderboard",
            ),
            # The standings move without a reload: a timer that renders nothing.
            rx.moment(
                interval=REFRESH_MS,
                format="x",
                on_change=LeaderboardState.refresh,
                display="none",
            ),
            width="100%",
        ),
        width="100%",
        role="region",
        aria_label="Leaderboard",
    )
