"""The insights dashboard's data: every chart's rows, shaped in Python from ArenaService's reads.

Each tab loads what it draws (a deep link to one tab never pays for the others). Charts take
plain rows (``list[dict]``) so recharts can plot them as they are.
"""

from __future__ import annotations

import math
from typing import Any

import reflex as rx

from arena_api.core.boards import Board
from arena_api.core.categories import LANGUAGE_PREFIX, check_slice
from arena_api.core.lifecycle import STATUS_NOTES
from arena_api.core.populations import VOTE_METHODS
from arena_api.core.sides import VOTES
from arena_api.core.views import LeaderboardEntry, Votes
from arena_api.services.reads import check_category, check_votes
from arena_app.backend import services
from arena_app.formatting import dollars

#: The vote labels, in the kernel's order (each is an ``ActivityVotes`` field).
OUTCOME_KEYS = VOTES
#: How many models the time charts show until the reader picks others: the board's top.
SERIES_SHOWN = 8
#: Lines that can be told apart, so the most models a time chart shows at once; the picker
#: gives each model the first colour no other shown model has.
SERIES_COLORS = (
    "#3e63dd",
    "#e5484d",
    "#30a46c",
    "#f76b15",
    "#8e4ec6",
    "#12a594",
    "#d6409f",
    "#ad7f58",
    "#00a2c7",
    "#ffb224",
    "#60646c",
    "#5c7c2f",
)
#: The longest model name a ranked chart prints whole (a longer one ends in an ellipsis).
NAME_CHARS = 24
#: The tie-rate chart's pairs: those whose tie rate is surely highest.
TIE_PAIRS = 20
#: The spend per day stacks this many models (the dearest) and the rest as one bar.
SPEND_SHOWN = 7
#: How many models the pair matrix shows unless the reader asks for more: its choices.
MATRIX_SIZES = ("10", "20", "30", "all")
MATRIX_SIZE = "20"
#: The matrix's orders: the board's (rating), by name, by games played.
MATRIX_ORDERS = ("rating", "name", "games")
# The rating-over-time chart shows at most this many refits, spread over the whole history (a
# refit every 5 minutes makes 8,640 a month).
HISTORY_POINTS = 200
#: How the chart reads each stored coefficient (standardised: per standard deviation of the delta;
#: ``position`` outright), not the readable units of ``arena_api.core.style_features``.
STYLE_BASES = {
    "position": "left-slot advantage",
    "verbosity": "per std. dev. of output tokens",
    "formatting": "per std. dev. of Markdown density",
    "latency_ttft": "per std. dev. of TTFT",
    "latency_duration": "per std. dev. of duration",
}


ALL_PROMPTS = "all"


_NO_BOARD = "No board for these prompts yet: they need more votes."
_STYLE_OVERALL = "Style control is fitted over every prompt: pick All prompts to see it."


def category_label(value: str) -> str:
    """``creative_writing`` as "Creative writing", ``language:de`` as "Language: de"."""
    if value.startswith(LANGUAGE_PREFIX):
        return f"Language: {value.removeprefix(LANGUAGE_PREFIX)}"
    return value.replace("_", " ").capitalize()


def _pct(part: float, whole: float) -> float:
    return round(100 * part / whole, 1) if whole else 0.0


def _dumbbell_row(name: str, **ends: float) -> dict[str, Any]:
    """A dumbbell's row: its two values, rounded, and the ``span`` bar joining them."""
    values = {key: round(value, 1) for key, value in ends.items()}
    return {"name": name, **values, "span": [min(values.values()), max(values.values())]}


def name_width(names: list[str]) -> int:
    """Pixels a ranked chart's name column needs for its longest name in 12 px type on one
    line (up to ``NAME_CHARS`` characters: a phone's chart keeps room for its bars)."""
    longest = max((len(n) for n in names), default=0)
    return max(80, 24 + round(8.2 * min(longest, NAME_CHARS)))


def _wilson(hits: int, trials: int, z: float = 1.96) -> list[float]:
    """The Wilson score interval of ``hits`` in ``trials`` (95 %), in %."""
    if not trials:
        return [0.0, 100.0]
    p = hits / trials
    centre = p + z * z / (2 * trials)
    spread = z * math.sqrt(p * (1 - p) / trials + z * z / (4 * trials * trials))
    scale = 100 / (1 + z * z / trials)
    return [round((centre - spread) * scale, 1), round((centre + spread) * scale, 1)]


def _rating_axis(values: list[float]) -> tuple[list[float], bool]:
    """An axis over the middle 98 % of ``values`` (sorted), padded and rounded to tens."""
    if not values:
        return [0.0, 1.0], False
    cut = len(values) // 100
    low, high = values[cut], values[len(values) - 1 - cut]
    pad = max(10.0, 0.05 * (high - low))
    domain = [math.floor((low - pad) / 10) * 10.0, math.ceil((high + pad) / 10) * 10.0]
    return domain, values[0] < domain[0] or values[-1] > domain[1]


def _tone(rate: float) -> str:
    """A matrix cell's background: green above 50 %, red below, stronger the further away."""
    if rate < 0:
        return "transparent"
    strength = 0.08 + 0.6 * min(abs(rate - 50) / 50, 1.0)
    rgb = "48,164,108" if rate >= 50 else "229,72,77"
    return f"rgba({rgb},{strength:.2f})"


_UNNAMED = "(unnamed model)"


def _matrix_cell(row: int, column: int, cells: dict[str, list[int]]) -> dict[str, str]:
    """One cell: the row's score against the column (wins and half the ties, in %), the games,
    its tone and the pair it stands for ("" where none was played)."""
    if row == column:
        return {"label": "—", "games": "—", "tone": "var(--gray-a3)", "pair": ""}
    pair = f"{row}|{column}"
    record = cells.get(pair)
    if record is None or not record[3]:
        return {"label": "", "games": "", "tone": "transparent", "pair": ""}
    wins, _, ties, games = record
    rate = _pct(wins + ties / 2, games)
    return {"label": f"{rate:.0f}%", "games": f"{games:,}", "tone": _tone(rate), "pair": pair}


def _shifts(models: list[LeaderboardEntry]) -> list[dict[str, Any]]:
    """Each model's move under style control, in the default order: places ``up`` or
    ``down`` (one of them 0, so the other's bar shows alone) and both ranks for the tooltip."""
    by_default = sorted(models, key=lambda m: -(m.rating or 0))
    by_style = sorted(models, key=lambda m: -(m.style_controlled_rating or 0))
    styled_rank = {m.id: i for i, m in enumerate(by_style, 1)}
    rows = []
    for rank, m in enumerate(by_default, 1):
        moved = rank - styled_rank[m.id]
        rows.append(
            {
                "name": m.display_name,
                "up": max(moved, 0),
                "down": min(moved, 0),
                "ranks": f"#{rank} by default, #{styled_rank[m.id]} style-controlled",
            }
        )
    return rows


class InsightsState(rx.State):
    """Summary strip and notice (every tab), then one group of rows per tab."""

    has_votes: bool = False
    has_fit: bool = False
    summary: list[dict[str, str]] = []

    rankings: list[dict[str, Any]] = []
    #: The models no vote has decided yet, left out of the win rates (a bar at 0 % would read
    #: as games lost): named under the chart instead.
    unplayed: str = ""
    #: The rated models whose ratings are provisional, with why ("" when none is).
    provisional: str = ""
    #: The paused and archived models the board keeps for their history ("" when none is).
    held_back: str = ""
    rated: list[dict[str, Any]] = []
    styled: list[dict[str, Any]] = []
    #: Places each model moves under style control, in the board's order (up or down).
    shifts: list[dict[str, Any]] = []
    #: The pixels a ranked chart's names take (``name_width``) on the tab on screen.
    names_px: int = 120

    #: The matrix's shown rows (``name``, ``cells``) and columns, in the same order.
    matrix: list[dict[str, Any]] = []
    matrix_names: list[str] = []
    matrix_size: str = MATRIX_SIZE
    matrix_order: str = "rating"
    matrix_filter: str = ""
    #: What the matrix shows of how many ("20 of 30 models, by rating").
    matrix_caption: str = ""
    #: The models with games in the matrix, shown or not.
    matrix_total: int = 0
    #: Every model of the matrix in the board's order, and each ordered pair's record
    #: ("i|j": wins of i, wins of j, ties, games), to shape the shown part without a reload.
    _h2h_names: list[str] = []
    _h2h_cells: dict[str, list[int]] = {}
    show_games: bool = False
    pair_detail: str = ""
    tie_rates: list[dict[str, Any]] = []
    components_note: str = ""

    coefficients: list[dict[str, Any]] = []
    positions: list[dict[str, Any]] = []
    metrics: list[dict[str, Any]] = []

    #: The time charts' rows with the shown models' values only, keyed ``m<n>`` (``_series``).
    history: list[dict[str, Any]] = []
    volume: list[dict[str, Any]] = []
    cumulative: list[dict[str, Any]] = []
    #: The models the time charts show (``key``, ``name``, ``color``), and those they could.
    series_shown: list[dict[str, str]] = []
    #: The rating chart's axis: the middle 98 % of the shown values (the first refits, on
    #: a handful of votes, swing hundreds of points and would flatten every later line), and
    #: whether some values lie beyond it.
    history_domain: list[float] = [0.0, 1.0]
    history_clipped: bool = False
    series_more: list[dict[str, str]] = []
    #: Every model with a rating history or games: its short key by id (kept across reloads,
    #: so a pick survives one), its name, and the rows with every model's values.
    _series: dict[str, str] = {}
    _series_names: dict[str, str] = {}
    _series_ranked: list[str] = []
    _history_rows: list[dict[str, Any]] = []
    _cumulative_rows: list[dict[str, Any]] = []
    spend: list[dict[str, Any]] = []
    #: The stacked spend's series: the dearest models, then "Other models" (``key``, ``name``).
    spend_names: list[dict[str, str]] = []
    spend_by_model: list[dict[str, str]] = []
    spend_total: str = ""

    #: Whose votes the dashboard counts: people's (the default), the judge model's, or both.
    votes: str = "human"
    #: The slice of prompts it is cut to: ``all``, a category, or ``language:<code>``.
    category: str = ALL_PROMPTS
    #: The picker's choices: every prompt, then the slices with votes (most voted first).
    category_options: list[dict[str, str]] = [{"value": ALL_PROMPTS, "label": "All prompts"}]

    def _population(self) -> Votes:
        return check_votes(self.votes)

    def _slice(self) -> str | None:
        return None if self.category == ALL_PROMPTS else check_category(self.category)

    def _board(self) -> Board:
        return Board(population=self._population(), category=self._slice())

    @rx.event
    async def set_votes(self, value: str | list[str]) -> Any:
        """Count another population's votes, and reload the tab on screen with them."""
        if not isinstance(value, str) or value not in VOTE_METHODS:
            return None
        self.votes = value
        return self._reload()

    @rx.event
    async def set_category(self, value: str) -> Any:
        """Cut the dashboard to one slice of prompts (or none), and reload the tab on screen."""
        if value != ALL_PROMPTS and check_slice(value) is None:
            return None
        self.category = value
        return self._reload()

    def _reload(self) -> Any:
        """The loader of the tab on screen."""
        tab = self.router.page.path.rstrip("/").rsplit("/", 1)[-1]
        loaders = {
            "rankings": InsightsState.load_rankings,
            "head-to-head": InsightsState.load_head_to_head,
            "style": InsightsState.load_style,
            "activity": InsightsState.load_activity,
        }
        return loaders.get(tab)

    @rx.var
    def fit_lacks(self) -> str:
        return "No rating fit yet." if self.category == ALL_PROMPTS else _NO_BOARD

    @rx.var
    def history_lacks(self) -> str:
        return "No rating history yet." if self.category == ALL_PROMPTS else _NO_BOARD

    @rx.var
    def style_lacks(self) -> str:
        return "No style-controlled fit yet." if self.category == ALL_PROMPTS else _STYLE_OVERALL

    @rx.var
    def style_pass_lacks(self) -> str:
        if self.category != ALL_PROMPTS:
            return _STYLE_OVERALL
        return "The style pass has not run yet."

    @rx.var
    def notice(self) -> str:
        if not self.has_votes and self.category != ALL_PROMPTS:
            return "No votes on these prompts yet. Pick another category, or All prompts."
        if not self.has_votes and self.votes == "judge":
            return (
                "No judge votes yet. Ask the judge on a round in the arena, or let it judge "
                "shadow rounds in the background (ARENA_EXPOSURE=shadow)."
            )
        if not self.has_votes:
            return (
                "No votes yet, so there is nothing to chart. Vote in the arena, or fill a "
                "database with realistic history: arena db seed-demo"
            )
        if not self.has_fit and self.category != ALL_PROMPTS:
            return (
                "These prompts have no board of their own yet: the rating process fits one once "
                "a category has enough votes (RATING_CATEGORY_MIN_VOTES, 200 by default). The "
                "counts below are theirs already."
            )
        if not self.has_fit:
            return (
                "Votes exist but no rating fit does yet. Run the rating process once: "
                "arena rate (arena serve runs it in the background every few minutes)"
            )
        return ""

    async def _summary(self) -> None:
        reads = services().reads
        view = await reads.analytics_summary(self._population(), self._slice())
        slices = await reads.categories(self._population())
        decisive = view.slot_a_wins + view.slot_b_wins
        self._update(
            category_options=[
                {"value": ALL_PROMPTS, "label": "All prompts"},
                *(
                    {"value": c.category, "label": f"{category_label(c.category)} · {c.votes:,}"}
                    for c in slices.categories
                ),
            ],
            has_votes=view.total_votes > 0,
            has_fit=view.rating_components is not None,
            summary=[
                {"label": "Votes", "value": f"{view.total_votes:,}"},
                {"label": "Models", "value": str(view.enabled_models)},
                {
                    "label": "Pairs sampled",
                    "value": f"{view.enabled_pairs_sampled} of {view.pairs_possible}",
                },
                {
                    "label": "Components",
                    "value": "—" if view.rating_components is None else str(view.rating_components),
                },
                {
                    "label": "Decisive A / B",
                    "value": f"{_pct(view.slot_a_wins, decisive):.0f}% / "
                    f"{_pct(view.slot_b_wins, decisive):.0f}%",
                },
            ],
        )

    @rx.event
    async def load_rankings(self) -> None:
        await self._rankings()

    @rx.event
    async def refresh_rankings(self, _now: str = "") -> None:
        """The rankings tab's timer: the standings move without a reload."""
        await self._rankings()

    async def _rankings(self) -> None:
        await self._summary()
        reads = services().reads
        board = await reads.leaderboard(self._board())
        rankings = [
            {
                "name": m.display_name,
                "win_rate": round(m.win_rate * 100, 1),
                "wins": m.wins,
                "ties": m.ties,
                "losses": m.losses,
                "skips": m.skips,
            }
            for m in board.models
            if m.decided
        ]
        waiting = [m.display_name for m in board.models if not m.decided]
        unplayed = f"No games yet: {', '.join(waiting)}." if waiting and rankings else ""
        rated = [
            {
                "name": m.display_name,
                "rating": round(m.rating, 1),
                "ci": [
                    round(m.confidence_interval.lower, 1),
                    round(m.confidence_interval.upper, 1),
                ],
            }
            for m in board.models
            if m.rating is not None and m.confidence_interval is not None
        ]
        # The board lists provisional ratings below the settled ones, and says why each is.
        unsettled = [
            f"{m.display_name} ({reads.provisional_note(m).removeprefix('provisional: ')})"
            for m in board.models
            if m.provisional and m.rating is not None
        ]
        provisional = f"Provisional, listed last: {'; '.join(unsettled)}." if unsettled else ""
        kept = [
            f"{m.display_name} ({STATUS_NOTES[m.status]})"
            for m in board.models
            if m.status in STATUS_NOTES
        ]
        held_back = f"Kept for their history, never matched: {'; '.join(kept)}." if kept else ""
        both = [
            m
            for m in board.models
            if m.rating is not None and m.style_controlled_rating is not None
        ]
        styled = [
            _dumbbell_row(
                m.display_name,
                default=m.rating or 0,
                controlled=m.style_controlled_rating or 0,
            )
            for m in both
        ]
        self._update(
            rankings=rankings,
            unplayed=unplayed,
            rated=rated,
            provisional=provisional,
            held_back=held_back,
            styled=styled,
            shifts=_shifts(both),
            names_px=name_width([m.display_name for m in board.models]),
        )

    def _update(self, **values: Any) -> None:
        """Set what changed only: Reflex sends every var that was set, and a chart that gets
        its data again draws itself again."""
        for name, value in values.items():
            if getattr(self, name) != value:
                setattr(self, name, value)

    @rx.event
    async def load_head_to_head(self) -> None:
        await self._summary()
        view = await services().reads.head_to_head(self._population(), self._slice())
        board = await services().reads.leaderboard(self._board())
        names = {m.id: m.display_name for m in view.models}
        played = {i for pair in view.pairs for i in (pair.model_a_id, pair.model_b_id)}
        # The board's order, then the models with games the board does not list (paused or
        # archived), by name.
        order = [m.id for m in board.models if m.id in played]
        order += sorted(played - set(order), key=lambda i: names.get(i, ""))
        index = {model_id: i for i, model_id in enumerate(order)}
        cells: dict[str, list[int]] = {}
        ties: list[dict[str, Any]] = []
        for pair in view.pairs:
            i, j = index[pair.model_a_id], index[pair.model_b_id]
            cells[f"{i}|{j}"] = [pair.a_wins, pair.b_wins, pair.ties, pair.games]
            cells[f"{j}|{i}"] = [pair.b_wins, pair.a_wins, pair.ties, pair.games]
            if pair.games:
                a, b = names.get(pair.model_a_id, _UNNAMED), names.get(pair.model_b_id, _UNNAMED)
                ties.append(
                    {
                        "pair": f"{a} vs {b}",
                        "tie_rate": _pct(pair.ties, pair.games),
                        "interval": _wilson(pair.ties, pair.games),
                    }
                )
        self._h2h_names = [names.get(i, _UNNAMED) for i in order]
        self._h2h_cells = cells
        self.pair_detail = ""
        self._publish_matrix()
        # Ranked by the lower end of the tie rate's interval: a pair tied in its only two
        # games does not top the list over one that ties a third of a thousand.
        ties.sort(key=lambda t: -float(t["interval"][0]))
        self.tie_rates = ties[:TIE_PAIRS]
        groups = board.components.groups
        if board.components.count is None:
            self.components_note = "Connectivity is known once the rating process has run."
        elif board.components.count == 1:
            self.components_note = "Every rated model is connected: ratings are comparable."
        else:
            sizes = ", ".join(f"group {g.component_id}: {g.models} models" for g in groups)
            self.components_note = (
                f"{board.components.count} separate groups ({sizes}): ratings compare only "
                "within a group until games bridge them."
            )

    def _publish_matrix(self) -> None:
        """The shown part of the matrix: the models matching the filter, in the order picked,
        as many as the size allows; rows and columns alike, so each row has a cell under
        every column header (the diagonal one too)."""
        names, cells = self._h2h_names, self._h2h_cells
        games = [0] * len(names)
        for key, (_, _, _, played) in cells.items():
            games[int(key.split("|", 1)[0])] += played
        needle = self.matrix_filter.strip().casefold()
        shown = [i for i, name in enumerate(names) if needle in name.casefold()]
        if self.matrix_order == "name":
            shown.sort(key=lambda i: names[i].casefold())
        elif self.matrix_order == "games":
            shown.sort(key=lambda i: -games[i])
        matching = len(shown)
        if self.matrix_size != "all":
            shown = shown[: int(self.matrix_size)]
        self.matrix_total = len(names)
        self.matrix_names = [names[i] for i in shown]
        self.matrix = [
            {"name": names[i], "cells": [_matrix_cell(i, j, cells) for j in shown]} for i in shown
        ]
        which = f" matching “{self.matrix_filter.strip()}”" if needle else ""
        self.matrix_caption = (
            f"{len(shown)} of {len(names)} models{which}, by {self.matrix_order}"
            if matching
            else f"No model matches “{self.matrix_filter.strip()}”."
        )

    @rx.event
    def set_matrix_size(self, value: str | list[str]) -> None:
        if isinstance(value, str) and value in MATRIX_SIZES:
            self.matrix_size = value
            self._publish_matrix()

    @rx.event
    def set_matrix_order(self, value: str | list[str]) -> None:
        if isinstance(value, str) and value in MATRIX_ORDERS:
            self.matrix_order = value
            self._publish_matrix()

    @rx.event
    def set_matrix_filter(self, value: str) -> None:
        self.matrix_filter = value[:100]
        self._publish_matrix()

    @rx.event
    def toggle_games(self) -> None:
        self.show_games = not self.show_games

    @rx.event
    def select_pair(self, pair: str) -> None:
        """Say what a clicked cell ("i|j", indices into the matrix's models) stands for."""
        record = self._h2h_cells.get(pair)
        if record is None:
            self.pair_detail = ""
            return
        row, column = (self._h2h_names[int(i)] for i in pair.split("|", 1))
        wins, losses, ties, games = record
        self.pair_detail = (
            f"{row} vs {column}: {wins} wins, {losses} losses, {ties} ties over {games} games"
        )

    @rx.event
    async def load_style(self) -> None:
        await self._summary()
        board = await services().reads.leaderboard(self._board())
        self.coefficients = [
            {
                "feature": effect.feature,
                "points": round(effect.points, 1),
                "unit": STYLE_BASES.get(effect.feature, effect.basis),
            }
            for effect in board.style_control.effects
        ]
        view = await services().reads.model_metrics(self._population(), self._slice())
        self._update(names_px=name_width([m.display_name for m in view.models]))
        win_rates = {m.id: m.win_rate * 100 for m in board.models}
        # The board's order, as on the rankings tab; models the board does not list last.
        place = {m.id: i for i, m in enumerate(board.models)}
        models = sorted(view.models, key=lambda m: (place.get(m.id, len(place)), m.display_name))
        self.positions = [
            _dumbbell_row(
                m.display_name,
                slot_a=_pct(m.slot_a_wins, m.slot_a_games),
                slot_b=_pct(m.slot_b_wins, m.slot_b_games),
            )
            for m in models
            if m.slot_a_games or m.slot_b_games
        ]
        self.metrics = [
            {
                "name": m.display_name,
                "win_rate": round(win_rates.get(m.id, 0.0), 1),
                "tokens": round(m.mean_output_tokens or 0, 1),
                "markdown": round(m.mean_markdown_density or 0, 3),
                "ttft": round(m.ttft_ms_p50 or 0),
                "latency": [round(m.duration_ms_p50 or 0), round(m.duration_ms_p90 or 0)],
            }
            for m in models
            if m.responses
        ]

    @rx.event
    async def load_activity(self) -> None:
        await self._summary()
        reads = services().reads
        history = await reads.rating_history(
            points=HISTORY_POINTS, votes=self._population(), category=self._slice()
        )
        activity = await reads.activity("day", votes=self._population(), category=self._slice())
        names = {m.id: m.display_name for m in (*history.models, *activity.models)}
        keys = dict(self._series)
        for model_id in names:
            keys.setdefault(model_id, f"m{len(keys)}")
        by_time: dict[str, dict[str, Any]] = {}
        latest: dict[str, float] = {}
        for point in history.points:  # in time order
            row = by_time.setdefault(
                point.computed_at.isoformat(), {"at": point.computed_at.strftime("%b %d %H:%M")}
            )
            row[keys[point.model_id]] = round(point.rating, 1)
            latest[point.model_id] = point.rating
        games = activity.cumulative_games[-1].games if activity.cumulative_games else {}
        # The board's top first (the latest rating), then the unrated by games played.
        ranked = sorted(
            {*latest, *games},
            key=lambda i: (i not in latest, -latest.get(i, 0.0), -games.get(i, 0), names[i]),
        )
        self._series = keys
        self._series_names = {keys[i]: names[i] for i in ranked}
        self._series_ranked = [keys[i] for i in ranked]
        self._history_rows = [by_time[k] for k in sorted(by_time)]
        self._cumulative_rows = [
            {"day": c.bucket_start.strftime("%b %d"), **{keys[i]: n for i, n in c.games.items()}}
            for c in activity.cumulative_games
        ]
        kept = [s for s in self.series_shown if s["key"] in self._series_names]
        self._publish_series(
            [{**s, "name": self._series_names[s["key"]]} for s in kept] or self._top_series()
        )
        self.volume = [
            {
                "day": v.bucket_start.strftime("%b %d"),
                **{key: getattr(v, key) for key in OUTCOME_KEYS},
            }
            for v in activity.votes
        ]
        await self._spend()

    def _top_series(self) -> list[dict[str, str]]:
        return [
            {"key": key, "name": self._series_names[key], "color": color}
            for key, color in zip(self._series_ranked[:SERIES_SHOWN], SERIES_COLORS, strict=False)
        ]

    def _publish_series(self, shown: list[dict[str, str]]) -> None:
        """Show ``shown`` on the time charts: their rows carry those models' values only."""
        keys = [s["key"] for s in shown]
        self.series_shown = shown
        self.series_more = [
            {"key": key, "name": self._series_names[key]}
            for key in self._series_ranked
            if key not in keys
        ]
        self.history = [
            {"at": r["at"], **{k: r[k] for k in keys if k in r}} for r in self._history_rows
        ]
        self.cumulative = [
            {"day": r["day"], **{k: r[k] for k in keys if k in r}} for r in self._cumulative_rows
        ]
        values = sorted(float(r[k]) for r in self.history for k in keys if k in r)
        self.history_domain, self.history_clipped = _rating_axis(values)

    @rx.event
    def add_series(self, key: str) -> None:
        """Draw another model on the time charts, in the first colour no shown model has."""
        used = {s["color"] for s in self.series_shown}
        free = [c for c in SERIES_COLORS if c not in used]
        shown = {s["key"] for s in self.series_shown}
        if key not in self._series_names or key in shown or not free:
            return
        name = self._series_names[key]
        self._publish_series([*self.series_shown, {"key": key, "name": name, "color": free[0]}])

    @rx.event
    def remove_series(self, key: str) -> None:
        self._publish_series([s for s in self.series_shown if s["key"] != key])

    @rx.event
    def reset_series(self) -> None:
        """Back to the board's top ``SERIES_SHOWN``."""
        self._publish_series(self._top_series())

    async def _spend(self) -> None:
        """What answers cost, per day and model (dollars), and per model over all days."""
        cost = await services().reads.cost("day", category=self._slice())
        # The dearest models stacked one by one, the rest as one bar: the day's total stays
        # whole and the legend short.
        priced = [m for m in cost.models if m.priced_responses]  # dearest first
        stacked = {m.id: f"s{i}" for i, m in enumerate(priced[:SPEND_SHOWN])}
        by_day: dict[str, dict[str, Any]] = {}
        for point in cost.series:
            key = stacked.get(point.model_id, "rest")
            day = by_day.setdefault(
                point.bucket_start.isoformat(), {"day": point.bucket_start.strftime("%b %d")}
            )
            day[key] = round(day.get(key, 0.0) + point.cost_usd, 6)
        self.spend = [by_day[k] for k in sorted(by_day)] if cost.total.cost_usd > 0 else []
        rest = len(priced) - SPEND_SHOWN
        self.spend_names = [
            {"key": stacked[m.id], "name": m.display_name} for m in priced[:SPEND_SHOWN]
        ] + ([{"key": "rest", "name": f"{rest} other models"}] if rest > 0 else [])
        self.spend_by_model = [
            {
                "name": m.display_name,
                "cost": dollars(m.cost_usd) if m.priced_responses else "no price",
                "per_answer": dollars(m.cost_usd / m.priced_responses)
                if m.priced_responses
                else "—",
                "tokens": f"{m.input_tokens:,} in · {m.output_tokens:,} out",
                "estimated": f"{_pct(m.estimated_responses, m.responses):g}%",
            }
            for m in cost.models
        ]
        total = cost.total
        unpriced = total.responses - total.priced_responses
        self.spend_total = (
            f"{dollars(total.cost_usd)} over {total.responses:,} answers"
            + (f" ({unpriced:,} from models with no price)" if unpriced else "")
            if total.responses
            else ""
        )
