"""The insights page's "Judge vs people" panel: raw agreement and Cohen's κ on the rounds both
judged, the confusion matrix (rows people, columns the judge, the diagonal where they agree), and
Kendall's τ between their boards; without judged rounds, how to get some."""

from __future__ import annotations

import reflex as rx

from arena_app.state.insights import InsightsState
from arena_app.state.judge_agreement import (
    BACKFILL_COMMAND,
    LABEL_NAMES,
    JudgeAgreementState,
)

_COLUMNS = tuple(f"c{j}" for j in range(len(LABEL_NAMES)))
_AGREE = "var(--green-a4)"


def _figure(item: rx.Var[dict[str, str]]) -> rx.Component:
    return rx.card(
        rx.text(item["label"], size="1", color_scheme="gray"),
        rx.text(item["value"], size="5", weight="bold"),
        rx.text(item["note"], size="1", color_scheme="gray"),
        min_width="9em",
    )


def _cell(row: rx.Var[dict[str, str]], column: str) -> rx.Component:
    return rx.table.cell(
        row[column],
        text_align="right",
        background=rx.cond(row["agree"] == column, _AGREE, "transparent"),
    )


def _matrix() -> rx.Component:
    s = JudgeAgreementState
    header = rx.table.row(
        # On a phone the corner and "Both bad" wrap, so that the whole matrix fits its width.
        rx.table.column_header_cell(rx.text("People \\ Judge", size="1", color_scheme="gray")),
        *(rx.table.column_header_cell(name, text_align="right") for name in LABEL_NAMES.values()),
        rx.table.column_header_cell("All", text_align="right"),
    )
    totals = rx.table.row(
        rx.table.row_header_cell("All"),
        *(rx.table.cell(s.totals[c], text_align="right") for c in _COLUMNS),
        rx.table.cell(s.totals["total"], text_align="right", weight="bold"),
    )
    return rx.box(
        rx.table.root(
            rx.table.header(header),
            rx.table.body(
                rx.foreach(
                    s.rows,
                    lambda row: rx.table.row(
                        rx.table.row_header_cell(row["label"], white_space="nowrap"),
                        *(_cell(row, c) for c in _COLUMNS),
                        rx.table.cell(row["total"], text_align="right"),
                    ),
                ),
                totals,
            ),
            size="1",
            variant="surface",
        ),
        overflow_x="auto",
        max_width="100%",
        data_testid="judge-agreement-matrix",
    )


def _judged() -> rx.Component:
    s = JudgeAgreementState
    return rx.vstack(
        rx.text(s.caption, size="2", color_scheme="gray"),
        rx.hstack(rx.foreach(s.figures, _figure), wrap="wrap", spacing="3"),
        _matrix(),
        rx.text(
            "Rows: what people voted; columns: the judge's verdict on the same round. A: "
            "answer A (left) is better, B: answer B; a person's “both good” is the judge's "
            "tie. Shaded: they agree. κ is the agreement beyond chance: 0 is what chance "
            "gives, 1 always the same.",
            size="1",
            color_scheme="gray",
        ),
        width="100%",
        spacing="3",
    )


def _empty() -> rx.Component:
    s = JudgeAgreementState
    return rx.vstack(
        rx.text(
            "No round has both a person's vote and a verdict of the judge yet",
            rx.cond(s.slice_label != "", " (" + s.slice_label + ")", ""),
            ". Ask the judge about rounds people voted on (their votes stay as they are); it "
            "estimates the cost first:",
            size="2",
            color_scheme="gray",
        ),
        rx.code(BACKFILL_COMMAND, size="2", data_testid="judge-backfill-command"),
        width="100%",
    )


def judge_agreement_panel() -> rx.Component:
    """The panel, across the tab's columns; it reads the agreement when it mounts and again
    whenever the dashboard's slice of prompts changes, since it is keyed by that slice."""
    s = JudgeAgreementState
    card = rx.card(
        rx.vstack(
            rx.heading("Judge vs people", size="3"),
            rx.cond(s.n > 0, _judged(), _empty()),
            rx.text(s.tau, size="1", color_scheme="gray", data_testid="judge-agreement-tau"),
            width="100%",
        ),
        on_mount=s.load,
        width="100%",
        data_testid="card-judge-vs-people",
    )
    return rx.box(card, key=InsightsState.category, width="100%", grid_column="1 / -1")
