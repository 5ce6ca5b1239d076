"""The insights dashboard: a summary strip and four tabs, each a deep link of its own."""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import reflex as rx

from arena_app import routes
from arena_app.components.layout import layout
from arena_app.state.insights import OUTCOME_KEYS, InsightsState
from arena_app.state.leaderboard import REFRESH_MS

COLORS = ("#3e63dd", "#e5484d", "#30a46c", "#f76b15", "#8e4ec6", "#12a594", "#ffc53d", "#d6409f")
OUTCOME_COLORS = dict(
    zip(OUTCOME_KEYS, ("#3e63dd", "#e5484d", "#30a46c", "#f76b15", "#8b8d98"), strict=True)
)
HEIGHT = 320


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
    y_width: int = 120,
    chart: Callable[..., rx.Component] = rx.recharts.bar_chart,
) -> rx.Component:
    """A chart with one row per category on the y axis (models, pairs, features)."""
    return chart(
        *series,
        rx.recharts.y_axis(data_key=y_key, type_="category", width=y_width),
        rx.recharts.graphing_tooltip(cursor=False),
        data=data,
        layout="vertical",
        width="100%",
        height=HEIGHT,
    )


def _over_time(
    *series: rx.Component,
    data: rx.Var[list[dict[str, Any]]],
    x_key: str,
    y_axis: rx.Component | None = None,
    chart: Callable[..., rx.Component] = rx.recharts.line_chart,
) -> rx.Component:
    """A chart with time along the x axis (``x_key``), a legend and a tooltip."""
    return chart(
        *series,
        rx.recharts.x_axis(data_key=x_key),
        y_axis or rx.recharts.y_axis(),
        rx.recharts.legend(),
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
        rx.recharts.legend(),
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


def _lines(names: rx.Var[list[str]]) -> rx.Component:
    return rx.foreach(
        names,
        lambda name, index: rx.recharts.line(
            data_key=name,
            stroke=rx.Var.create(list(COLORS))[index % len(COLORS)],
            dot=False,
            is_animation_active=False,
        ),
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
                        data_key="win_rate", fill=COLORS[0], bar_size=6, is_animation_active=False
                    ),
                    rx.recharts.reference_line(x=50, stroke="#8b8d98"),
                    rx.recharts.x_axis(type_="number", domain=[0, 100], unit="%"),
                    data=s.rankings,
                    y_key="name",
                ),
                rx.cond(
                    s.unplayed != "",
                    rx.text(s.unplayed, size="1", color_scheme="gray", data_testid="unplayed"),
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
                        data_key="ci", fill="#c1c8f5", bar_size=6, is_animation_active=False
                    ),
                    rx.recharts.line(
                        data_key="rating",
                        stroke="transparent",
                        dot={"r": 4, "fill": COLORS[0], "stroke": COLORS[0]},
                        is_animation_active=False,
                    ),
                    rx.recharts.x_axis(type_="number", domain=["auto", "auto"]),
                    data=s.rated,
                    y_key="name",
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
                rx.recharts.x_axis(type_="number", domain=["auto", "auto"]),
            ),
        ),
        _card(
            "Rank shift under style control",
            InsightsState.style_lacks,
            s.bump.length() > 0,
            rx.recharts.line_chart(
                _lines(s.bump_names),
                rx.recharts.x_axis(data_key="stage"),
                rx.recharts.y_axis(reversed=True, allow_decimals=False),
                rx.recharts.legend(),
                data=s.bump,
                width="100%",
                height=HEIGHT,
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
                rx.recharts.x_axis(type_="number"),
                rx.recharts.legend(),
                data=s.rankings,
            ),
        ),
    )


def _matrix_cell(cell: rx.Var[dict]) -> rx.Component:  # type: ignore[type-arg]
    rate = cell["rate"].to(float)
    return rx.box(
        rx.cond(InsightsState.show_games, cell["games_label"], cell["label"]),
        on_click=InsightsState.select_pair(cell["detail"].to(str)),
        background=rx.cond(
            rate < 0,
            "transparent",
            rx.cond(rate >= 50, "rgba(48,164,108,0.35)", "rgba(229,72,77,0.35)"),
        ),
        padding="0.4em",
        text_align="center",
        font_size="12px",
        cursor="pointer",
        border=f"1px solid {rx.color('gray', 4)}",
        class_name="h2h-cell",
    )


def head_to_head_tab() -> rx.Component:
    s = InsightsState
    matrix = rx.vstack(
        rx.hstack(
            rx.switch(
                checked=s.show_games,
                on_change=lambda _: s.toggle_games(),
                data_testid="games-toggle",
            ),
            rx.text("show games instead of win rate (row vs column)", size="2"),
            align="center",
        ),
        rx.box(
            rx.foreach(
                s.matrix,
                lambda row: rx.hstack(
                    rx.text(row["name"], size="1", width="9em", flex_shrink="0"),
                    rx.foreach(row["cells"].to(list[dict]), _matrix_cell),
                    spacing="0",
                ),
            ),
            overflow_x="auto",
            width="100%",
            data_testid="h2h-matrix",
        ),
        rx.cond(
            s.pair_detail != "", rx.callout(s.pair_detail, icon="info", data_testid="pair-detail")
        ),
        width="100%",
    )
    return rx.grid(
        _card("Pair win rates", "No votes yet.", s.matrix.length() > 0, matrix),
        _card(
            "Tie rate by pair",
            "No decided pairs yet.",
            s.tie_rates.length() > 0,
            _horizontal(
                rx.recharts.bar(data_key="tie_rate", fill="#ffc53d", is_animation_active=False),
                rx.recharts.x_axis(type_="number", unit="%"),
                data=s.tie_rates,
                y_key="pair",
                y_width=200,
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
            rx.recharts.graphing_tooltip(cursor=False),
            width="100%",
            height=HEIGHT,
        ),
    )


def style_tab() -> rx.Component:
    s = InsightsState
    return _tab_grid(
        _card(
            "Style coefficients (rating points)",
            InsightsState.style_pass_lacks,
            s.coefficients.length() > 0,
            _horizontal(
                rx.recharts.bar(data_key="points", fill=COLORS[4], is_animation_active=False),
                rx.recharts.reference_line(x=0, stroke="#8b8d98"),
                rx.recharts.x_axis(type_="number"),
                data=s.coefficients,
                y_key="feature",
                y_width=150,
            ),
        ),
        _card(
            "Decisive win rate in slot A vs slot B",
            "No decisive votes yet.",
            s.positions.length() > 0,
            _dumbbell(
                s.positions,
                (("slot_a", "In slot A"), ("slot_b", "In slot B")),
                rx.recharts.x_axis(type_="number", domain=[0, 100], unit="%"),
            ),
        ),
        _scatter("Verbosity vs win rate", "tokens", "mean output tokens"),
        _scatter("Time to first token vs win rate", "ttft", "p50 TTFT (ms)"),
        _scatter("Markdown vs win rate", "markdown", "mean Markdown density"),
        _card(
            "Stream duration p50 to p90 (ms)",
            "No answers recorded yet.",
            s.metrics.length() > 0,
            _horizontal(
                rx.recharts.bar(data_key="latency", fill=COLORS[5], is_animation_active=False),
                rx.recharts.x_axis(type_="number"),
                data=s.metrics,
                y_key="name",
            ),
        ),
    )


def activity_tab() -> rx.Component:
    s = InsightsState
    return _tab_grid(
        _card(
            "Rating over time",
            InsightsState.history_lacks,
            s.history.length() > 0,
            _over_time(
                _lines(s.history_names),
                data=s.history,
                x_key="at",
                y_axis=rx.recharts.y_axis(domain=["auto", "auto"]),
            ),
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
            "Cumulative games",
            "No votes yet.",
            s.cumulative.length() > 0,
            _over_time(_lines(s.history_names), data=s.cumulative, x_key="day"),
        ),
        _card(
            "Spend per day (USD)",
            "Nothing has cost anything yet: give models a price in models.yaml.",
            s.spend.length() > 0,
            _over_time(
                rx.foreach(
                    s.spend_names,
                    lambda name, index: rx.recharts.bar(
                        data_key=name,
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
        _card(
            "Spend by model", "No answers recorded yet.", s.spend_by_model.length() > 0, _spend()
        ),
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
