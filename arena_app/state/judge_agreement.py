"""The insights page's "Judge vs people" panel: how far the judge's verdicts agree with people's
votes on the rounds both judged, for the slice of prompts the dashboard is cut to
(``InsightsState``; whose votes it counts does not apply: this compares the two)."""

from __future__ import annotations

import reflex as rx

from arena_api.core.views import JudgeAgreementView
from arena_api.services.reads import check_category
from arena_app.backend import services
from arena_app.state.insights import ALL_PROMPTS, InsightsState, category_label

#: How the matrix names each label (``JudgeAgreementView.labels``), short enough for a phone:
#: "A" is "answer A (left) is better"; a person's "both good" is the judge's tie.
LABEL_NAMES = {"A": "A", "B": "B", "tie": "Tie", "both_bad": "Both bad"}
#: Landis and Koch's (1977) reading of κ, by the lowest κ of each band.
KAPPA_BANDS = (
    (0.81, "almost perfect"),
    (0.61, "substantial"),
    (0.41, "moderate"),
    (0.21, "fair"),
    (0.0, "slight"),
)
BACKFILL_COMMAND = "arena judge backfill --limit 100"


def kappa_strength(kappa: float) -> str:
    """κ in Landis and Koch's words: "moderate" for 0.41 to 0.60, "poor" below 0."""
    return next((words for lowest, words in KAPPA_BANDS if kappa >= lowest), "poor")


class JudgeAgreementState(rx.State):
    #: Rounds counted (a person's vote and the judge's verdict); 0 shows how to get some.
    n: int = 0
    #: Who is compared with whom, on how many rounds, and what was left out.
    caption: str = ""
    #: The figures: ``{"label", "value", "note"}`` each.
    figures: list[dict[str, str]] = []
    #: The matrix, a row per person's label: ``label``, ``c0``..``c3`` (counts under each of the
    #: judge's labels), ``total``, and ``agree``: the column of the diagonal cell.
    rows: list[dict[str, str]] = []
    #: Each of the judge's labels' total (``c0``..``c3``), and all rounds' (``total``).
    totals: dict[str, str] = {}
    #: Kendall's τ between the boards, in words (also without judged rounds).
    tau: str = ""
    #: The slice of prompts, as the empty state names it ("" for every prompt).
    slice_label: str = ""

    @rx.event
    async def load(self) -> None:
        """Read the agreement for the dashboard's slice of prompts (run when the panel mounts,
        and again when the slice changes: the panel is keyed by it)."""
        insights = await self.get_state(InsightsState)
        category = None if insights.category == ALL_PROMPTS else check_category(insights.category)
        view = await services().reads.judge_agreement(category)
        self.n = view.n
        self.slice_label = "" if category is None else category_label(category)
        self.caption = _caption(view, self.slice_label)
        self.figures = _figures(view)
        self.rows = [
            {
                "label": LABEL_NAMES[label],
                **{f"c{j}": f"{count:,}" for j, count in enumerate(row)},
                "total": f"{sum(row):,}",
                "agree": f"c{i}",
            }
            for i, (label, row) in enumerate(zip(view.labels, view.matrix, strict=True))
        ]
        columns = [sum(column) for column in zip(*view.matrix, strict=True)]
        self.totals = {f"c{j}": f"{count:,}" for j, count in enumerate(columns)}
        self.totals["total"] = f"{view.n:,}"
        self.tau = _tau(view)


def _caption(view: JudgeAgreementView, slice_label: str) -> str:
    judges = " and ".join(view.judges) or "The judge"
    where = f" ({slice_label})" if slice_label else ""
    skipped = (
        f" {view.skips:,} judged rounds that people skipped are left out." if view.skips else ""
    )
    return f"{judges} against people's votes on {view.n:,} blind rounds{where}.{skipped}"


def _figures(view: JudgeAgreementView) -> list[dict[str, str]]:
    figures = []
    if view.agreement is not None:
        figures.append(
            {"label": "Agreement", "value": f"{view.agreement:.0%}", "note": "same label"}
        )
    if view.kappa is not None and view.kappa_interval is not None:
        interval = view.kappa_interval
        figures.append(
            {
                "label": "Cohen's κ",
                "value": f"{view.kappa:.2f}",
                "note": f"{kappa_strength(view.kappa)}; "
                f"95% CI {interval.lower:.2f} to {interval.upper:.2f}",
            }
        )
    elif view.n:
        figures.append(
            {"label": "Cohen's κ", "value": "–", "note": "both used one label throughout"}
        )
    return figures


def _tau(view: JudgeAgreementView) -> str:
    if view.category is not None:
        return "Kendall's τ between the boards: the judge's board covers every prompt only."
    if view.tau is None:
        return (
            "Kendall's τ between the boards needs two models rated on both the judge's board "
            "and people's."
        )
    return (
        f"Kendall's τ between the judge's board and people's: {view.tau:.2f} over "
        f"{view.tau_models:,} models rated on both (1: the same order, −1: reversed)."
    )
