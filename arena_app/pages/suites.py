"""``/suites``: run an eval suite, follow it, read its verdicts, compare two runs."""

from __future__ import annotations

import reflex as rx

from arena_app.components.layout import layout
from arena_app.state.leaderboard import REFRESH_MS
from arena_app.state.suites import SuitesState


def _table(columns: tuple[tuple[str, str], ...], rows: rx.Var, testid: str) -> rx.Component:
    """A table that scrolls sideways inside its card on a narrow screen."""
    return rx.box(_rows_table(columns, rows, testid), overflow_x="auto", width="100%")


def _rows_table(columns: tuple[tuple[str, str], ...], rows: rx.Var, testid: str) -> rx.Component:
    return rx.table.root(
        rx.table.header(
            rx.table.row(*(rx.table.column_header_cell(label) for _, label in columns))
        ),
        rx.table.body(
            rx.foreach(
                rows,
                lambda row: rx.table.row(*(rx.table.cell(row[key]) for key, _ in columns)),
            )
        ),
        size="1",
        width="100%",
        data_testid=testid,
    )


def _suite_card(suite: rx.Var) -> rx.Component:
    return rx.card(
        rx.hstack(
            rx.vstack(
                rx.text(suite["name"], weight="bold"),
                rx.text(suite["description"], size="2", color_scheme="gray"),
                rx.text(suite["prompts"] + " prompts · pair: " + suite["pair"], size="1"),
                spacing="1",
                align="start",
            ),
            rx.spacer(),
            rx.button(
                rx.icon("play", size=14),
                "Run",
                on_click=SuitesState.start(suite["name"]),
                data_testid="run-" + suite["name"],
            ),
            align="center",
            width="100%",
        ),
        width="100%",
    )


def _runs() -> rx.Component:
    s = SuitesState
    return rx.card(
        rx.vstack(
            rx.heading("Runs", size="3"),
            rx.cond(
                s.runs.length() > 0,
                rx.box(
                    rx.table.root(
                        rx.table.header(
                            rx.table.row(
                                *(
                                    rx.table.column_header_cell(c)
                                    for c in ("Suite", "Started", "Status", "Progress", "Cost", "")
                                )
                            )
                        ),
                        rx.table.body(
                            rx.foreach(
                                s.runs,
                                lambda run: rx.table.row(
                                    rx.table.cell(run["suite"]),
                                    rx.table.cell(run["started"]),
                                    rx.table.cell(rx.badge(run["status"])),
                                    rx.table.cell(run["progress"]),
                                    rx.table.cell(run["cost"]),
                                    rx.table.cell(
                                        rx.button(
                                            "Open",
                                            size="1",
                                            variant="soft",
                                            on_click=SuitesState.show(run["id"]),
                                        )
                                    ),
                                ),
                            )
                        ),
                        size="1",
                        width="100%",
                        data_testid="runs",
                    ),
                    overflow_x="auto",
                    width="100%",
                ),
                rx.text("No runs yet: run a suite above.", size="2", color_scheme="gray"),
            ),
            width="100%",
        ),
        width="100%",
    )


def _run() -> rx.Component:
    s = SuitesState
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.heading("Run of " + s.run["suite"], size="3"),
                rx.badge(s.run["status"], data_testid="run-status"),
                rx.spacer(),
                rx.cond(
                    (s.run["status"] == "interrupted") | (s.run["status"] == "failed"),
                    rx.button("Resume", on_click=SuitesState.resume, size="1"),
                ),
                align="center",
                width="100%",
            ),
            rx.progress(value=s.percent, width="100%", aria_label="Progress"),
            rx.text(
                s.run["progress"] + " prompts judged · cost " + s.run["cost"],
                size="2",
                data_testid="run-progress",
            ),
            rx.cond(s.run["error"] != "", rx.callout(s.run["error"], color_scheme="red")),
            _table(
                (("model", "Model"), ("wins", "Won"), ("losses", "Lost"), ("ties", "Tied")),
                s.tally,
                "tally",
            ),
            _table(
                (
                    ("index", "#"),
                    ("prompt", "Prompt"),
                    ("category", "Category"),
                    ("models", "Models"),
                    ("verdict", "Judge's verdict"),
                    ("cost", "Cost"),
                ),
                s.results,
                "results",
            ),
            width="100%",
        ),
        width="100%",
    )


def _diff() -> rx.Component:
    s = SuitesState

    def picker(value: rx.Var, on_change: rx.EventHandler, label: str) -> rx.Component:
        return rx.select.root(
            rx.select.trigger(placeholder=label, aria_label=label),
            rx.select.content(
                rx.foreach(
                    s.runs,
                    lambda run: rx.select.item(
                        run["suite"] + " · " + run["started"], value=run["id"]
                    ),
                )
            ),
            value=value,
            on_change=on_change,
        )

    return rx.card(
        rx.vstack(
            rx.heading("Compare two runs", size="3"),
            rx.hstack(
                picker(s.diff_a, SuitesState.set_diff_a, "First run"),
                picker(s.diff_b, SuitesState.set_diff_b, "Second run"),
                rx.button("Compare", on_click=SuitesState.compare, data_testid="compare"),
                wrap="wrap",
                spacing="2",
            ),
            rx.cond(
                s.diff.length() > 0,
                rx.vstack(
                    rx.text(s.diff_summary, size="2", data_testid="diff-summary"),
                    _table(
                        (
                            ("prompt", "Prompt"),
                            ("a", "First run"),
                            ("b", "Second run"),
                            ("changed", ""),
                        ),
                        s.diff,
                        "diff",
                    ),
                    width="100%",
                ),
            ),
            width="100%",
        ),
        width="100%",
    )


def suites_page() -> rx.Component:
    s = SuitesState
    return layout(
        rx.vstack(
            rx.moment(interval=REFRESH_MS, format="x", on_change=s.refresh, display="none"),
            rx.heading("Eval suites", size="7"),
            rx.text(
                "Each prompt of a suite becomes a blind round judged by the judge model; rerun "
                "a suite after a model change and compare the runs.",
                size="2",
                color_scheme="gray",
            ),
            rx.cond(s.notice != "", rx.callout(s.notice, icon="info", data_testid="notice")),
            rx.foreach(
                s.errors,
                lambda e: rx.callout(e, icon="triangle-alert", color_scheme="red", size="1"),
            ),
            rx.cond(
                s.suites.length() > 0,
                rx.grid(
                    rx.foreach(s.suites, _suite_card),
                    columns=rx.breakpoints(initial="1", md="2"),
                    spacing="3",
                    width="100%",
                ),
                rx.text("No suites: add a YAML file to suites/ (ARENA_SUITES_DIR)."),
            ),
            rx.cond(s.run_id != "", _run()),
            _runs(),
            rx.cond(s.runs.length() > 1, _diff()),
            spacing="4",
            width="100%",
        )
    )
