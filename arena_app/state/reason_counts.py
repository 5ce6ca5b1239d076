"""The insights page's "Why people voted" panel: the reasons given with votes, per winning model,
for the population and slice of prompts the dashboard is cut to (``InsightsState``)."""

from __future__ import annotations

from typing import Any

import reflex as rx

from arena_api.services.reads import check_category, check_votes
from arena_app.backend import services
from arena_app.state.insights import ALL_PROMPTS, InsightsState

#: One colour per reason, in the offered order (recharts needs them by reason).
REASON_COLORS = (
    "#3e63dd",
    "#30a46c",
    "#8e4ec6",
    "#e5484d",
    "#f76b15",
    "#12a594",
    "#ffc53d",
    "#d6409f",
    "#0090ff",
    "#a18072",
    "#5b5bd6",
    "#8b8d98",
)


def _key(reason: str) -> str:
    """A reason's key in a chart row: prefixed, since recharts spreads a row's keys onto each
    bar as props (a reason named ``style`` would become the bar's style)."""
    return f"reason_{reason}"


class ReasonCountsState(rx.State):
    #: One row per model that won a vote with a reason, most such wins first: its name and
    #: each reason's count (under ``_key(reason)``).
    rows: list[dict[str, Any]] = []
    #: The reasons in the chart, in the offered order: ``{"key", "label", "color"}``.
    series: list[dict[str, str]] = []
    #: What the votes that carried a reason add up to, in words.
    caption: str = ""
    #: Reasons given with ties, both-bad votes and skips (no winner to count them for).
    undecided: str = ""

    @rx.event
    async def load(self) -> None:
        """Read the counts for the dashboard's cut (run when the panel mounts, and again when
        the cut changes: the panel is keyed by it)."""
        insights = await self.get_state(InsightsState)
        category = None if insights.category == ALL_PROMPTS else check_category(insights.category)
        view = await services().reads.reason_counts(check_votes(insights.votes), category)
        labels = {r.id: r.label for r in view.reasons}
        used = {r for m in view.models for r in m.counts}
        self.series = [
            {"key": _key(r.id), "label": r.label, "color": REASON_COLORS[n % len(REASON_COLORS)]}
            for n, r in enumerate(view.reasons)
            if r.id in used
        ]
        self.rows = [
            {"name": m.display_name, **{_key(r): n for r, n in m.counts.items()}}
            for m in view.models
        ]
        explained = sum(m.explained_wins for m in view.models)
        self.caption = (
            f"{view.votes:,} votes said why; {explained:,} of them picked a winner. Each bar "
            "counts the reasons ticked with the votes a model won (a vote may carry several)."
            if view.votes
            else ""
        )
        self.undecided = ", ".join(f"{labels.get(r, r)} {n:,}" for r, n in view.undecided.items())
