"""The suites page's data: the suites, their recent runs, one run's results, a diff of two."""

from __future__ import annotations

import uuid
from typing import Any

import reflex as rx

from arena_api.core.errors import ArenaError
from arena_api.core.views import SuiteResultView, SuiteRunView
from arena_app.backend import services
from arena_app.formatting import dollars

_OUTCOMES = {
    "A": "A won",
    "B": "B won",
    "tie": "Tie",
    "both_bad": "Both bad",
    "unparseable": "No readable verdict",
    "failed": "Failed",
}


def _verdict(result: SuiteResultView | None) -> str:
    if result is None:
        return "—"
    if result.winner:
        return f"{result.winner} won"
    return _OUTCOMES.get(result.outcome, result.outcome)


def _run_row(run: SuiteRunView) -> dict[str, str]:
    return {
        "id": run.run_id,
        "suite": run.suite,
        "status": run.status,
        "progress": f"{run.completed} of {run.total}",
        "started": run.created_at.strftime("%b %d %H:%M:%S"),
        "cost": "—" if run.cost_usd is None else dollars(run.cost_usd),
    }


class SuitesState(rx.State):
    suites: list[dict[str, str]] = []
    errors: list[str] = []
    runs: list[dict[str, str]] = []
    run_id: str = ""  # the run on screen
    run: dict[str, str] = {}
    percent: int = 0  # the run on screen's progress
    tally: list[dict[str, str]] = []
    results: list[dict[str, str]] = []
    diff_a: str = ""
    diff_b: str = ""
    diff: list[dict[str, str]] = []
    diff_summary: str = ""
    notice: str = ""

    @rx.var
    def running(self) -> bool:
        return self.run.get("status") == "running"

    @rx.event
    async def load(self) -> None:
        catalogue = services().suites.available()
        self.suites = [
            {
                "name": s.name,
                "description": s.description,
                "prompts": str(s.prompts),
                "pair": " vs ".join(s.models) if s.models else "drawn per prompt",
            }
            for s in catalogue.suites
        ]
        self.errors = catalogue.errors
        await self._runs()

    async def _runs(self) -> None:
        self.runs = [_run_row(r) for r in (await services().suites.recent()).runs]

    @rx.event
    async def start(self, name: str) -> None:
        self.notice = ""
        try:
            run = await services().suites.start(name)
        except ArenaError as exc:
            self.notice = exc.message
            return
        await self._show(run.run_id)
        await self._runs()

    @rx.event
    async def resume(self) -> None:
        try:
            await services().suites.resume(uuid.UUID(self.run_id))
        except ArenaError as exc:
            self.notice = exc.message
            return
        await self._show(self.run_id)

    @rx.event
    async def show(self, run_id: str) -> None:
        await self._show(run_id)

    @rx.event
    async def refresh(self, _now: str = "") -> None:
        """The page's timer: a running run's progress, without a reload."""
        if self.run_id and self.run.get("status") == "running":
            await self._show(self.run_id)
            await self._runs()

    async def _show(self, run_id: str) -> None:
        try:
            view = await services().suites.get(uuid.UUID(run_id))
        except (ArenaError, ValueError):
            self.notice = "That run no longer exists."
            return
        self.run_id = run_id
        self.run = {
            **_run_row(view),
            "unparseable": str(view.unparseable),
            "failed": str(view.failed),
            "error": view.error or "",
        }
        self.percent = round(view.progress * 100)
        self.tally = [
            {"model": t.model, "wins": str(t.wins), "losses": str(t.losses), "ties": str(t.ties)}
            for t in view.tally
        ]
        self.results = [
            {
                "index": str(r.index + 1),
                "prompt": r.prompt,
                "category": r.category or "",
                "verdict": _verdict(r),
                "models": " vs ".join(r.models),
                "cost": "—" if r.cost_usd is None else dollars(r.cost_usd),
            }
            for r in view.results
        ]

    @rx.event
    def set_diff_a(self, value: str) -> None:
        self.diff_a = value

    @rx.event
    def set_diff_b(self, value: str) -> None:
        self.diff_b = value

    @rx.event
    async def compare(self) -> Any:
        if not self.diff_a or not self.diff_b:
            self.notice = "Pick two runs to compare."
            return None
        try:
            diff = await services().suites.diff(uuid.UUID(self.diff_a), uuid.UUID(self.diff_b))
        except (ArenaError, ValueError) as exc:
            self.notice = getattr(exc, "message", "Those runs cannot be compared.")
            return None
        self.diff = [
            {
                "prompt": row.prompt,
                "a": _verdict(row.a),
                "b": _verdict(row.b),
                "changed": "changed" if row.changed else "",
            }
            for row in diff.prompts
        ]
        self.diff_summary = f"{diff.changed} changed, {diff.unchanged} unchanged"
        return None
