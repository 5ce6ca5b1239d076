"""The insights dashboard's data: every chart's rows, shaped in Python from ArenaService's reads.

Each tab loads what it draws (a deep link to one tab never pays for the others). Charts take
plain rows (``list[dict]``) so recharts can plot them as they are.
"""

from __future__ import annotations

from typing import Any

import reflex as rx

from arena_api.core.boards import Board
from arena_api.core.categories import LANGUAGE_PREFIX, check_slice
from arena_api.core.populations import VOTE_METHODS
from arena_api.core.sides import VOTES
from arena_api.core.views import Votes
from arena_api.services.reads import check_category, check_votes
from arena_app.backend import services
from arena_app.formatting import dollars

#: The vote labels, in the kernel's order (each is an ``ActivityVotes`` field).
OUTCOME_KEYS = VOTES
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
    rated: list[dict[str, Any]] = []
    styled: list[dict[str, Any]] = []
    bump: list[dict[str, Any]] = []
    bump_names: list[str] = []

    matrix: list[dict[str, Any]] = []
    matrix_names: list[str] = []
    show_games: bool = False
    pair_detail: str = ""
    tie_rates: list[dict[str, Any]] = []
    components_note: str = ""

    coefficients: list[dict[str, Any]] = []
    positions: list[dict[str, Any]] = []
    metrics: list[dict[str, Any]] = []

    history: list[dict[str, Any]] = []
    history_names: list[str] = []
    volume: list[dict[str, Any]] = []
    cumulative: list[dict[str, Any]] = []
    spend: list[dict[str, Any]] = []
    spend_names: list[str] = []
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
        by_default = sorted(both, key=lambda m: -(m.rating or 0))
        by_style = sorted(both, key=lambda m: -(m.style_controlled_rating or 0))
        bump_names = [m.display_name for m in by_default]
        bump = [
            {"stage": "Default", **{m.display_name: i for i, m in enumerate(by_default, 1)}},
            {"stage": "Style-controlled", **{m.display_name: i for i, m in enumerate(by_style, 1)}},
        ]
        self._update(
            rankings=rankings,
            unplayed=unplayed,
            rated=rated,
            provisional=provisional,
            styled=styled,
            bump_names=bump_names,
            bump=bump,
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
        order = [m.display_name for m in board.models if m.display_name in names.values()]
        cells: dict[tuple[str, str], dict[str, Any]] = {}
        ties: list[dict[str, Any]] = []
        for pair in view.pairs:
            a, b = names.get(pair.model_a_id), names.get(pair.model_b_id)
            if a is None or b is None:
                continue
            decided = pair.a_wins + pair.b_wins + pair.ties
            cells[(a, b)] = {
                "wins": pair.a_wins,
                "ties": pair.ties,
                "games": pair.games,
                "rate": _pct(pair.a_wins + pair.ties / 2, decided),
            }
            cells[(b, a)] = {
                "wins": pair.b_wins,
                "ties": pair.ties,
                "games": pair.games,
                "rate": _pct(pair.b_wins + pair.ties / 2, decided),
            }
            if pair.games:
                ties.append({"pair": f"{a} vs {b}", "tie_rate": _pct(pair.ties, pair.games)})
        self.matrix_names = order
        self.matrix = [
            {
                "name": row,
                "cells": [
                    {
                        "key": f"{row}|{column}",
                        "rate": cells.get((row, column), {}).get("rate", -1.0),
                        "games": cells.get((row, column), {}).get("games", 0),
                        "label": ""
                        if row == column or (row, column) not in cells
                        else f"{cells[(row, column)]['rate']:.0f}%",
                        "games_label": ""
                        if (row, column) not in cells
                        else str(cells[(row, column)]["games"]),
                        "detail": ""
                        if (row, column) not in cells
                        else f"{row} vs {column}: {cells[(row, column)]['wins']} wins, "
                        f"{cells[(column, row)]['wins']} losses, {cells[(row, column)]['ties']} "
                        f"ties over {cells[(row, column)]['games']} games",
                    }
                    for column in order
                ],
            }
            for row in order
        ]
        self.tie_rates = sorted(ties, key=lambda t: -float(t["tie_rate"]))[:20]
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

    @rx.event
    def toggle_games(self) -> None:
        self.show_games = not self.show_games

    @rx.event
    def select_pair(self, detail: str) -> None:
        self.pair_detail = detail

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
        win_rates = {m.id: m.win_rate * 100 for m in board.models}
        self.positions = [
            _dumbbell_row(
                m.display_name,
                slot_a=_pct(m.slot_a_wins, m.slot_a_games),
                slot_b=_pct(m.slot_b_wins, m.slot_b_games),
            )
            for m in view.models
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
            for m in view.models
            if m.responses
        ]

    @rx.event
    async def load_activity(self) -> None:
        await self._summary()
        history = await services().reads.rating_history(
            points=HISTORY_POINTS, votes=self._population(), category=self._slice()
        )
        names = {m.id: m.display_name for m in history.models}
        by_time: dict[str, dict[str, Any]] = {}
        for point in history.points:
            key = point.computed_at.isoformat()
            row = by_time.setdefault(key, {"at": point.computed_at.strftime("%b %d %H:%M")})
            row[names.get(point.model_id, point.model_id)] = round(point.rating, 1)
        self.history = [by_time[k] for k in sorted(by_time)]
        self.history_names = sorted({n for row in self.history for n in row if n != "at"})
        activity = await services().reads.activity(
            "day", votes=self._population(), category=self._slice()
        )
        self.volume = [
            {
                "day": v.bucket_start.strftime("%b %d"),
                **{key: getattr(v, key) for key in OUTCOME_KEYS},
            }
            for v in activity.votes
        ]
        model_names = {m.id: m.display_name for m in activity.models}
        self.cumulative = [
            {
                "day": c.bucket_start.strftime("%b %d"),
                **{model_names.get(i, i): n for i, n in c.games.items()},
            }
            for c in activity.cumulative_games
        ]
        if not self.history_names:
            self.history_names = sorted(model_names.values())
        await self._spend()

    async def _spend(self) -> None:
        """What answers cost, per day and model (dollars), and per model over all days."""
        cost = await services().reads.cost("day", category=self._slice())
        names = {m.id: m.display_name for m in cost.models}
        by_day: dict[str, dict[str, Any]] = {}
        for point in cost.series:
            key = point.bucket_start.isoformat()
            row = by_day.setdefault(key, {"day": point.bucket_start.strftime("%b %d")})
            row[names[point.model_id]] = round(point.cost_usd, 6)
        self.spend = [by_day[k] for k in sorted(by_day)] if cost.total.cost_usd > 0 else []
        # In name order, so each model keeps the colour the other charts give it.
        self.spend_names = sorted(m.display_name for m in cost.models if m.priced_responses)
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
