"""The insights dashboard: a summary strip and four tabs, each a deep link of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx
from reflex.vars.function import FunctionStringVar

from arena_app import routes
from arena_app.components.judge_agreement import judge_agreement_panel
from arena_app.components.layout import layout
from arena_app.components.reason_counts import reason_counts_panel
from arena_app.state.insights import (
    MATRIX_ORDERS,
    MATRIX_SIZES,
    NAME_CHARS,
    OUTCOME_KEYS,
    SERIES_COLORS,
    SERIES_SHOWN,
    InsightsState,
)
from arena_app.state.leaderboard import REFRESH_MS

COLORS = ("#3e63dd", "#e5484d", "#30a46c", "#f76b15", "#8e4ec6", "#12a594", "#ffc53d", "#d6409f")
OUTCOME_COLORS = dict(
    zip(OUTCOME_KEYS, ("#3e63dd", "#e5484d", "#30a46c", "#f76b15", "#8b8d98"), strict=True)
)
HEIGHT = 320
#: A ranked chart gives each row (a model, a pair) this many pixels: a line of 12 px type and
#: a bar that can be told from its neighbours; the chart grows with its rows.
ROW_PX = 24
#: What a ranked chart needs besides its rows: the axis and the legend above them, margins.
FRAME_PX = 72
TICK = {"fontSize": 12}
# A ranked chart prints a model's name of up to NAME_CHARS characters whole, a longer one cut
# with an ellipsis (its tooltip gives it whole), so that no name wraps into its neighbour's row.
_SHORT_NAME = FunctionStringVar.create(
    f"(name) => name.length > {NAME_CHARS} ? name.slice(0, {NAME_CHARS - 1}) + '\u2026' : name"
)


def _card(
    title: str, lacks: str | rx.Var[str], has_data: rx.Var[bool], chart: rx.Component
) -> rx.Component:
    """A chart card; without data it says what it lacks instead of drawing an empty frame."""
    return rx.card(
        rx.vstack(
            rx.heading(title, size="3"),
            rx.cond(has_data, chart, rx.text(lacks, size="2", color_scheme="gray")),
            width="100%",
        ),
        width="100%",
        data_testid=f"card-{title.lower().replace(' ', '-')}",
    )


def _horizontal(
    *series: rx.Component,
    data: rx.Var[list[dict[str, Any]]],
    y_key: str = "name",
    y_width: int | rx.Var[int] = InsightsState.names_px,
    row_px: int = ROW_PX,
    chart: Callable[..., rx.Component] = rx.recharts.bar_chart,
) -> rx.Component:
    """A ranked chart: one row per category (models, pairs, features), every name printed
    (``interval=0``) on one line of ``y_width`` pixels, and as tall as its rows need, so that
    30 or 100 models each get a readable bar. Its x axis and legend sit on top, in view
    where the chart begins."""
    return chart(
        *series,
        rx.recharts.y_axis(
            data_key=y_key,
            type_="category",
            width=y_width,
            interval=0,
            tick=TICK,
            tick_formatter=_SHORT_NAME if y_key == "name" else None,
        ),
        rx.recharts.graphing_tooltip(cursor=False),
        data=data,
        layout="vertical",
        width="100%",
        height=(data.length() * row_px + FRAME_PX).to(int),
        margin={"top": 4, "right": 16, "bottom": 4, "left": 0},
    )


def _top_axis(**props: Any) -> rx.Component:
    """A ranked chart's value axis, above its rows."""
    return rx.recharts.x_axis(type_="number", orientation="top", tick=TICK, **props)


def _top_legend() -> rx.Component:
    return rx.recharts.legend(vertical_align="top", height=28)


def _over_time(
    *series: rx.Component,
    data: rx.Var[list[dict[str, Any]]],
    x_key: str,
    y_axis: rx.Component | None = None,
    chart: Callable[..., rx.Component] = rx.recharts.line_chart,
    legend: bool = True,
) -> rx.Component:
    """A chart with time along the x axis (``x_key``) and a tooltip; its legend (a few
    entries at most) unless the model picker above the charts is the legend."""
    return chart(
        *series,
        rx.recharts.x_axis(data_key=x_key, tick=TICK, min_tick_gap=24),
        y_axis or rx.recharts.y_axis(tick=TICK),
        *((rx.recharts.legend(),) if legend else ()),
        rx.recharts.graphing_tooltip(cursor=False),
        data=data,
        width="100%",
        height=HEIGHT,
    )


def _dumbbell(
    data: rx.Var[list[dict[str, Any]]],
    ends: tuple[tuple[str, str], tuple[str, str]],
    x_axis: rx.Component,
) -> rx.Component:
    """Two values per row, ``ends`` = ((key, legend name), ...), joined by a bar over the row's
    ``span`` ([low, high]). The dots are lines of zero width, so that the legend shows their
    colours. Recharts passes a row's fields to the bar as props: no key may be ``style``."""
    return _horizontal(
        rx.recharts.bar(
            data_key="span",
            fill="#b9bbc6",
            bar_size=3,
            legend_type="none",
            is_animation_active=False,
        ),
        *(
            rx.recharts.line(
                data_key=key,
                name=name,
                stroke=color,
                stroke_width=0,
                dot={"r": 5, "fill": color, "stroke": color},
                legend_type="circle",
                is_animation_active=False,
            )
            for (key, name), color in zip(ends, COLORS, strict=False)
        ),
        x_axis,
        _top_legend(),
        data=data,
        chart=rx.recharts.composed_chart,
    )


def _summary() -> rx.Component:
    return rx.vstack(
        rx.hstack(
            rx.foreach(
                InsightsState.summary,
                lambda item: rx.card(
                    rx.text(item["label"], size="1", color_scheme="gray"),
                    rx.text(item["value"], size="5", weight="bold"),
                    min_width="9em",
                ),
            ),
            wrap="wrap",
            spacing="3",
            data_testid="summary",
        ),
        rx.cond(
            InsightsState.notice != "",
            rx.callout(
                InsightsState.notice, icon="lightbulb", width="100%", data_testid="insights-notice"
            ),
        ),
        width="100%",
    )


def _tabs(active: str) -> rx.Component:
    return rx.hstack(
        *(
            rx.link(
                rx.button(label, variant="solid" if key == active else "soft", size="2"),
                href=routes.insights_tab(key),
                data_testid=f"tab-{key}",
            )
            for key, label in routes.INSIGHT_TABS
        ),
        rx.spacer(),
        rx.segmented_control.root(
            rx.segmented_control.item("People", value="human"),
            rx.segmented_control.item("Judge", value="judge"),
            rx.segmented_control.item("All votes", value="all"),
            value=InsightsState.votes,
            on_change=InsightsState.set_votes,
            aria_label="Whose votes to count",
            data_testid="votes-population",
        ),
        rx.select.root(
            rx.select.trigger(aria_label="Which prompts to count", data_testid="category-picker"),
            rx.select.content(
                rx.foreach(
                    InsightsState.category_options,
                    lambda option: rx.select.item(option["label"], value=option["value"]),
                )
            ),
            value=InsightsState.category,
            on_change=InsightsState.set_category,
            size="2",
        ),
        spacing="2",
        wrap="wrap",
        width="100%",
        align="center",
    )


def _lines() -> rx.Component:
    """A line per model the picker shows, in the colour its chip wears."""
    return rx.foreach(
        InsightsState.series_shown,
        lambda line: rx.recharts.line(
            data_key=line["key"],
            name=line["name"],
            stroke=line["color"],
            dot=False,
            connect_nulls=True,
            is_animation_active=False,
        ),
    )


def _series_chip(line: rx.Var[dict[str, str]]) -> rx.Component:
    """A shown model: its colour and name (the time charts' legend); a click takes it off."""
    return rx.button(
        rx.box(width="10px", height="10px", border_radius="50%", background=line["color"]),
        rx.text(line["name"], size="1"),
        rx.icon("x", size=12),
        on_click=InsightsState.remove_series(line["key"]),
        variant="outline",
        color_scheme="gray",
        size="1",
        aria_label=f"Remove {line['name']} from the time charts",
        data_testid="series-chip",
    )


def _series_picker() -> rx.Component:
    """Which models the time charts draw: the board's top few until the reader adds or
    removes others (as many as there are colours that tell lines apart)."""
    s = InsightsState
    full = s.series_shown.length() >= len(SERIES_COLORS)
    return rx.card(
        rx.vstack(
            rx.hstack(
                rx.text("Models on the time charts", size="2", weight="medium"),
                rx.spacer(),
                rx.select.root(
                    rx.select.trigger(
                        placeholder=rx.cond(full, f"{len(SERIES_COLORS)} at most", "Add a model…"),
                        aria_label="Add a model to the time charts",
                        data_testid="series-add",
                    ),
                    rx.select.content(
                        rx.foreach(
                            s.series_more,
                            lambda option: rx.select.item(option["name"], value=option["key"]),
                        )
                    ),
                    value="",
                    on_change=s.add_series,
                    disabled=full | (s.series_more.length() == 0),
                    size="1",
                ),
                rx.button(
                    f"Top {SERIES_SHOWN}",
                    on_click=s.reset_series,
                    variant="soft",
                    size="1",
                    data_testid="series-reset",
                ),
                align="center",
                wrap="wrap",
                width="100%",
            ),
            rx.hstack(
                rx.foreach(s.series_shown, _series_chip),
                rx.cond(
                    s.series_shown.length() == 0,
                    rx.text("No model picked: add one above.", size="1", color_scheme="gray"),
                ),
                wrap="wrap",
                spacing="2",
                data_testid="series-legend",
            ),
            width="100%",
        ),
        width="100%",
        data_testid="series-picker",
    )


def _tab_grid(*cards: rx.Component) -> rx.Component:
    """A tab's cards: two columns on wide screens, one on narrow ones."""
    return rx.grid(*cards, columns=rx.breakpoints(initial="1", lg="2"), spacing="4", width="100%")


def rankings_tab() -> rx.Component:
    s = InsightsState
    # The standings move without a reload: a timer that renders nothing.
    timer = rx.moment(interval=REFRESH_MS, format="x", on_change=s.refresh_rankings, display="none")
    return _tab_grid(
        timer,
        _card(
            "Win rate",
            "No votes yet.",
            s.rankings.length() > 0,
            rx.vstack(
                _horizontal(
                    rx.recharts.bar(
                        data_key="win_rate",
                        name="win rate",
                        unit="%",
                        fill=COLORS[0],
                        bar_size=12,
                        is_animation_active=False,
                    ),
                    rx.recharts.reference_line(x=50, stroke="#8b8d98"),
                    _top_axis(domain=[0, 100], unit="%"),
                    data=s.rankings,
                ),
                rx.cond(
                    s.unplayed != "",
                    rx.text(s.unplayed, size="1", color_scheme="gray", data_testid="unplayed"),
                ),
                rx.cond(
                    s.held_back != "",
                    rx.text(s.held_back, size="1", color_scheme="gray", data_testid="held-back"),
                ),
                width="100%",
            ),
        ),
        _card(
            "Bradley-Terry rating (95% CI)",
            InsightsState.fit_lacks,
            s.rated.length() > 0,
            rx.vstack(
                _horizontal(
                    rx.recharts.bar(
                        data_key="ci",
                        name="95% interval",
                        fill="#c1c8f5",
                        bar_size=10,
                        is_animation_active=False,
                    ),
                    rx.recharts.line(
                        data_key="rating",
                        stroke="transparent",
                        dot={"r": 4, "fill": COLORS[0], "stroke": COLORS[0]},
                        is_animation_active=False,
                    ),
                    _top_axis(domain=["auto", "auto"]),
                    data=s.rated,
                    chart=rx.recharts.composed_chart,
                ),
                rx.cond(
                    s.provisional != "",
                    rx.text(
                        s.provisional, size="1", color_scheme="gray", data_testid="provisional"
                    ),
                ),
                width="100%",
            ),
        ),
        _card(
            "Default vs style-controlled",
            InsightsState.style_lacks,
            s.styled.length() > 0,
            _dumbbell(
                s.styled,
                (("default", "Default"), ("controlled", "Style-controlled")),
                _top_axis(domain=["auto", "auto"]),
            ),
        ),
        _card(
            "Rank shift under style control",
            InsightsState.style_lacks,
            s.shifts.length() > 0,
            _horizontal(
                rx.recharts.bar(
                    data_key="up",
                    name="places up",
                    stack_id="shift",
                    fill="#30a46c",
                    bar_size=12,
                    is_animation_active=False,
                ),
                rx.recharts.bar(
                    data_key="down",
                    name="places down",
                    stack_id="shift",
                    fill="#e5484d",
                    bar_size=12,
                    is_animation_active=False,
                ),
                rx.recharts.reference_line(x=0, stroke="#8b8d98"),
                _top_axis(allow_decimals=False),
                _top_legend(),
                data=s.shifts,
            ),
        ),
        _card(
            "Vote outcomes",
            "No votes yet.",
            s.rankings.length() > 0,
            _horizontal(
                *(
                    rx.recharts.bar(
                        data_key=key, stack_id="o", fill=color, is_animation_active=False
                    )
                    for key, color in zip(
                        ("wins", "ties", "losses", "skips"),
                        ("#30a46c", "#ffc53d", "#e5484d", "#8b8d98"),
                        strict=True,
                    )
                ),
                _top_axis(),
                _top_legend(),
                data=s.rankings,
            ),
        ),
        judge_agreement_panel(),
    )


#: The matrix's cells: wide enough for "100%" or "12,345" in 11 px type.
CELL = "3.2rem"
#: What stays put while the matrix scrolls (the corner, the headers) covers the cells under it.
_PINNED = {"position": "sticky", "background": "var(--color-panel-solid)"}
_LINE = "1px solid var(--gray-a5)"


def _matrix_cell(cell: rx.Var[dict[str, str]]) -> rx.Component:
    """The row model's score against the column's; a click says what it rests on."""
    return rx.el.td(
        rx.cond(InsightsState.show_games, cell["games"], cell["label"]),
        on_click=InsightsState.select_pair(cell["pair"]),
        background=cell["tone"],
        cursor=rx.cond(cell["pair"] != "", "pointer", "default"),
        min_width=CELL,
        max_width=CELL,
        height="1.9rem",
        padding="0 0.2rem",
        text_align="center",
        font_size="11px",
        white_space="nowrap",
        border_right=_LINE,
        border_bottom=_LINE,
        class_name="h2h-cell",
    )


def _column_header(name: rx.Var[str]) -> rx.Component:
    """A column's model, written upwards so that a narrow column holds a long name."""
    return rx.el.th(
        rx.el.div(
            name,
            writing_mode="vertical-rl",
            transform="rotate(180deg)",
            white_space="nowrap",
            overflow="hidden",
            text_overflow="ellipsis",
            max_height="10rem",
            margin="0 auto",
        ),
        title=name,
        scope="col",
        vertical_align="bottom",
        padding="0.3rem 0",
        min_width=CELL,
        max_width=CELL,
        font_size="11px",
        font_weight="500",
        border_bottom=_LINE,
        top="0",
        z_index="1",
        style=_PINNED,
        class_name="h2h-column",
    )


def _row_header(name: rx.Var[str]) -> rx.Component:
    return rx.el.th(
        name,
        title=name,
        scope="row",
        text_align="left",
        font_size="12px",
        font_weight="500",
        white_space="nowrap",
        overflow="hidden",
        text_overflow="ellipsis",
        max_width="11rem",
        padding="0 0.5rem 0 0",
        border_right=_LINE,
        border_bottom=_LINE,
        left="0",
        z_index="1",
        style=_PINNED,
        class_name="h2h-row",
    )


def _matrix_controls() -> rx.Component:
    """How much of the matrix to show, in which order, and which models."""
    s = InsightsState
    return rx.hstack(
        rx.select.root(
            rx.select.trigger(aria_label="How many models the matrix shows"),
            rx.select.content(
                *(
                    rx.select.item("All models" if size == "all" else f"Top {size}", value=size)
                    for size in MATRIX_SIZES
                )
            ),
            value=s.matrix_size,
            on_change=s.set_matrix_size,
            size="1",
        ),
        rx.select.root(
            rx.select.trigger(aria_label="Order of the matrix"),
            rx.select.content(
                *(rx.select.item(f"By {order}", value=order) for order in MATRIX_ORDERS)
            ),
            value=s.matrix_order,
            on_change=s.set_matrix_order,
            size="1",
        ),
        rx.input(
            placeholder="Filter models by name",
            value=s.matrix_filter,
            on_change=s.set_matrix_filter,
            aria_label="Filter the matrix's models by name",
            size="1",
            width="14em",
            data_testid="matrix-filter",
        ),
        rx.hstack(
            rx.switch(
                checked=s.show_games,
                on_change=lambda _: s.toggle_games(),
                size="1",
                data_testid="games-toggle",
            ),
            rx.text("games instead of win rate", size="1"),
            align="center",
            spacing="1",
        ),
        wrap="wrap",
        align="center",
        spacing="3",
    )


def head_to_head_tab() -> rx.Component:
    s = InsightsState
    table = rx.el.table(
        rx.el.thead(
            rx.el.tr(
                rx.el.th(
                    "row vs column",
                    font_size="11px",
                    font_weight="400",
                    color=rx.color("gray", 11),
                    text_align="left",
                    vertical_align="bottom",
                    border_right=_LINE,
                    border_bottom=_LINE,
                    top="0",
                    left="0",
                    z_index="2",
                    style=_PINNED,
                ),
                rx.foreach(s.matrix_names, _column_header),
            )
        ),
        rx.el.tbody(
            rx.foreach(
                s.matrix,
                lambda row: rx.el.tr(
                    _row_header(row["name"]),
                    rx.foreach(row["cells"].to(list[dict[str, str]]), _matrix_cell),
                    class_name="h2h-matrix-row",
                ),
            )
        ),
        border_collapse="separate",
        border_spacing="0",
    )
    matrix = rx.vstack(
        _matrix_controls(),
        rx.text(
            s.matrix_caption,
            " · the row model's score against the column's (wins and half the ties)",
            size="1",
            color_scheme="gray",
            data_testid="matrix-caption",
        ),
        rx.box(
            table,
            overflow="auto",
            # Taller than a screen, the matrix scrolls inside itself under its pinned headers.
            max_height=rx.cond(s.matrix.length() > 20, "80vh", "none"),
            max_width="100%",
            data_testid="h2h-matrix",
        ),
        rx.cond(
            s.pair_detail != "", rx.callout(s.pair_detail, icon="info", data_testid="pair-detail")
        ),
        width="100%",
    )
    return rx.grid(
        _card("Pair win rates", "No votes yet.", s.matrix_total > 0, matrix),
        _card(
            "Tie rate by pair",
            "No decided pairs yet.",
            s.tie_rates.length() > 0,
            rx.vstack(
                rx.text(
                    "The pairs whose tie rate is surely highest (the dot, with its 95% interval): "
                    "ranked by the interval's lower end, so that a pair tied in its only two "
                    "games does not lead.",
                    size="1",
                    color_scheme="gray",
                ),
                _horizontal(
                    rx.recharts.bar(
                        data_key="interval",
                        name="95% interval",
                        unit="%",
                        fill="#ffe3a2",
                        bar_size=12,
                        is_animation_active=False,
                    ),
                    rx.recharts.line(
                        data_key="tie_rate",
                        name="tie rate",
                        unit="%",
                        stroke="transparent",
                        dot={"r": 4, "fill": "#e2a336", "stroke": "#e2a336"},
                        is_animation_active=False,
                    ),
                    _top_axis(unit="%", domain=[0, 100]),
                    data=s.tie_rates,
                    y_key="pair",
                    y_width=180,
                    row_px=40,  # a pair's two names take two lines
                    chart=rx.recharts.composed_chart,
                ),
                width="100%",
            ),
        ),
        rx.cond(
            s.components_note != "",
            rx.callout(s.components_note, icon="network", data_testid="connectivity"),
        ),
        columns="1",
        spacing="4",
        width="100%",
    )


def _scatter(title: str, x_key: str, x_label: str) -> rx.Component:
    s = InsightsState
    return _card(
        title,
        "No answers recorded yet.",
        s.metrics.length() > 0,
        rx.recharts.scatter_chart(
            rx.recharts.scatter(data=s.metrics, fill=COLORS[0], is_animation_active=False),
            rx.recharts.x_axis(data_key=x_key, type_="number", name=x_label),
            rx.recharts.y_axis(data_key="win_rate", type_="number", unit="%", name="win rate"),
            # Names each dot in the tooltip; one size for all.
            rx.recharts.z_axis(data_key="name", type_="category", range=[64, 64], name="model"),
            rx.recharts.graphing_tooltip(cursor=False),
            width="100%",
            height=HEIGHT,
        ),
    )


def style_tab() -> rx.Component:
    s = InsightsState
    # The small charts pair up first, the two with a row per model after them.
    return _tab_grid(
        _card(
            "Style coefficients (rating points)",
            InsightsState.style_pass_lacks,
            s.coefficients.length() > 0,
            _horizontal(
                rx.recharts.bar(
                    data_key="points",
                    name="rating points",
                    fill=COLORS[4],
                    bar_size=16,
                    is_animation_active=False,
                ),
                rx.recharts.reference_line(x=0, stroke="#8b8d98"),
                _top_axis(),
                data=s.coefficients,
                y_key="feature",
                y_width=130,
                row_px=40,
            ),
        ),
        _scatter("Verbosity vs win rate", "tokens", "mean output tokens"),
        _scatter("Time to first token vs win rate", "ttft", "p50 TTFT (ms)"),
        _scatter("Markdown vs win rate", "markdown", "mean Markdown density"),
        _card(
            "Decisive win rate in slot A vs slot B",
            "No decisive votes yet.",
            s.positions.length() > 0,
            _dumbbell(
                s.positions,
                (("slot_a", "In slot A"), ("slot_b", "In slot B")),
                _top_axis(domain=[0, 100], unit="%"),
            ),
        ),
        _card(
            "Stream duration p50 to p90 (ms)",
            "No answers recorded yet.",
            s.metrics.length() > 0,
            _horizontal(
                rx.recharts.bar(
                    data_key="latency",
                    name="p50 to p90 (ms)",
                    fill=COLORS[5],
                    bar_size=12,
                    is_animation_active=False,
                ),
                _top_axis(),
                data=s.metrics,
            ),
        ),
        reason_counts_panel(),
    )


def activity_tab() -> rx.Component:
    s = InsightsState
    return rx.vstack(
        _series_picker(),
        _tab_grid(
            _card(
                "Rating over time",
                InsightsState.history_lacks,
                s.history.length() > 0,
                rx.vstack(
                    _over_time(
                        _lines(),
                        data=s.history,
                        x_key="at",
                        y_axis=rx.recharts.y_axis(
                            domain=s.history_domain, allow_data_overflow=True, tick=TICK
                        ),
                        legend=False,
                    ),
                    rx.cond(
                        s.history_clipped,
                        rx.text(
                            "The first refits, on a handful of votes, swing beyond the axis: "
                            "point at them for their values.",
                            size="1",
                            color_scheme="gray",
                        ),
                    ),
                    width="100%",
                ),
            ),
            _card(
                "Cumulative games",
                "No votes yet.",
                s.cumulative.length() > 0,
                _over_time(_lines(), data=s.cumulative, x_key="day", legend=False),
            ),
            _card(
                "Votes per day",
                "No votes yet.",
                s.volume.length() > 0,
                _over_time(
                    *(
                        rx.recharts.bar(
                            data_key=key,
                            stack_id="v",
                            fill=OUTCOME_COLORS[key],
                            is_animation_active=False,
                        )
                        for key in OUTCOME_KEYS
                    ),
                    data=s.volume,
                    x_key="day",
                    chart=rx.recharts.bar_chart,
                ),
            ),
            _card(
                "Spend per day (USD)",
                "Nothing has cost anything yet: give models a price in models.yaml.",
                s.spend.length() > 0,
                _over_time(
                    rx.foreach(
                        s.spend_names,
                        lambda series, index: rx.recharts.bar(
                            data_key=series["key"],
                            name=series["name"],
                            stack_id="cost",
                            fill=rx.Var.create(list(COLORS))[index % len(COLORS)],
                            is_animation_active=False,
                        ),
                    ),
                    data=s.spend,
                    x_key="day",
                    chart=rx.recharts.bar_chart,
                ),
            ),
            rx.box(  # the whole width: a row per model, each on one line
                _card(
                    "Spend by model",
                    "No answers recorded yet.",
                    s.spend_by_model.length() > 0,
                    _spend(),
                ),
                grid_column="1 / -1",
            ),
        ),
        spacing="4",
        width="100%",
    )


def _spend() -> rx.Component:
    """The spend per model, dearest first, with how much of it rests on estimated tokens."""
    s = InsightsState
    columns = ("Model", "Cost", "Per answer", "Tokens", "Estimated")
    return rx.vstack(
        rx.text(s.spend_total, size="2", weight="medium", data_testid="spend-total"),
        rx.table.root(
            rx.table.header(rx.table.row(*(rx.table.column_header_cell(c) for c in columns))),
            rx.table.body(
                rx.foreach(
                    s.spend_by_model,
                    lambda row: rx.table.row(
                        rx.table.row_header_cell(row["name"]),
                        *(
                            rx.table.cell(row[key])
                            for key in ("cost", "per_answer", "tokens", "estimated")
                        ),
                    ),
                )
            ),
            size="1",
            width="100%",
            # A row per model on one line, however narrow the screen: the table scrolls across.
            white_space="nowrap",
        ),
        rx.text(
            "Tokens as the provider reported them, or estimated where it reported none.",
            size="1",
            color_scheme="gray",
        ),
        width="100%",
    )


TABS: dict[str, Callable[[], rx.Component]] = {
    "rankings": rankings_tab,
    "head-to-head": head_to_head_tab,
    "style": style_tab,
    "activity": activity_tab,
}


def insights_page(tab: str) -> Callable[[], rx.Component]:
    def page() -> rx.Component:
        return layout(
            rx.vstack(
                rx.heading("Insights", size="7"),
                _summary(),
                _tabs(tab),
                TABS[tab](),
                spacing="4",
                width="100%",
            )
        )

    page.__name__ = f"insights_{tab.replace('-', '_')}"
    return page
