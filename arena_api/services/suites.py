"""Eval suite runs: a suite's prompts, each a headless round judged by the roster's judge.

``start`` answers a run id at once; the run walks the prompts one after another (sequential, so
a suite never stampedes a provider's rate limit). Each prompt is a real round (``start_round``,
read to its end with no client: the same persistence as a live one, blind, with a fixed pair
when the suite names one) and a judge verdict (``method = 'judge'``); its outcome and cost are
stored per prompt, so the run's progress, tally and cost can be read at any time. A server that
stops leaves its runs ``interrupted`` (never stuck ``running``); ``resume`` picks a run up at
its first unjudged prompt. ``diff`` compares two runs prompt by prompt.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import uuid
from collections.abc import Callable, Sequence

from arena_api.core.errors import (
    ArenaError,
    InvalidRequest,
    NotFound,
    ShuttingDown,
    StorageUnavailable,
)
from arena_api.core.models import ModelEntry
from arena_api.core.ports import RoundReads
from arena_api.core.records import vote_outcome
from arena_api.core.requests import ChatRequest, parse_command
from arena_api.core.suite_runs import SuiteResultRecord, SuiteRunRecord, SuiteRunStore
from arena_api.core.views import (
    SuiteDiffRow,
    SuiteDiffView,
    SuiteResultView,
    SuiteRunsView,
    SuiteRunView,
    SuiteSummaryView,
    SuitesView,
    SuiteTally,
)
from arena_api.services.judge import JudgeService
from arena_api.services.rounds import ArenaService, RoundOptions
from arena_api.suites import SuiteLoad

__all__ = ["Progress", "SuiteService"]

_log = logging.getLogger(__name__)

#: Told after each prompt: (prompts judged, prompts in all).
Progress = Callable[[int, int], None]


class SuiteService:
    def __init__(
        self,
        *,
        arena: ArenaService,
        judge: JudgeService,
        repository: RoundReads,
        runs: SuiteRunStore,
        suites: SuiteLoad,
    ) -> None:
        self._arena = arena
        self._judge = judge
        self._repo = repository
        self._runs = runs
        self._suites = suites
        self._tasks: dict[uuid.UUID, asyncio.Task[None]] = {}

    def available(self) -> SuitesView:
        return SuitesView(
            suites=[
                SuiteSummaryView(
                    name=s.name,
                    description=s.description,
                    prompts=len(s.prompts),
                    models=list(s.models) if s.models else None,
                )
                for s in sorted(self._suites.suites.values(), key=lambda s: s.name)
            ],
            errors=list(self._suites.errors),
        )

    def list_prompts(self, name: str) -> list[str]:
        """The prompts of suite ``name`` (none for an unknown one)."""
        suite = self._suites.suites.get(name)
        return [p.prompt for p in suite.prompts] if suite else []

    async def recover(self) -> int:
        """At start: runs a stopped server left ``running`` become ``interrupted``."""
        interrupted = await self._runs.interrupt_running()
        if interrupted:
            _log.warning("%d suite run(s) were cut short by a stop; resume them", interrupted)
        return interrupted

    async def create(self, name: str) -> uuid.UUID:
        """A new run of suite ``name``, ``running`` with nothing done (nothing runs it yet).

        Raises:
            NotFound: no suite has that name (404 ``suite_not_found``).
            ArenaError: 404 ``judge_not_configured``; 400 ``invalid_request`` when the suite's
                fixed pair names no enabled model; 409 ``model_paused`` / ``model_archived``
                when it names a paused or archived one.
        """
        suite = self._suites.suites.get(name)
        if suite is None:
            raise NotFound(f"No suite is named {name!r}", code="suite_not_found")
        self._judge.require_judge()
        if suite.models:
            await self._pair(list(suite.models))
        prompts = [p.model_dump() for p in suite.prompts]
        return await self._runs.create(suite.name, prompts, list(suite.models or ()) or None)

    async def start(self, name: str) -> SuiteRunView:
        """Create a run and walk it in the background; answers at once."""
        run_id = await self.create(name)
        self._spawn(run_id)
        return await self.get(run_id)

    async def resume(self, run_id: uuid.UUID) -> SuiteRunView:
        """Walk an interrupted (or failed) run on from its first unjudged prompt.

        Raises:
            NotFound: no such run (404 ``suite_run_not_found``).
            ArenaError: 409 ``suite_run_not_resumable`` for a run that is running or done.
        """
        record = await self._record(run_id)
        if not await self._runs.resume(run_id):
            raise ArenaError(
                f"The run is {record.status}; only an interrupted or failed run resumes",
                status=409,
                code="suite_run_not_resumable",
            )
        self._spawn(run_id)
        return await self.get(run_id)

    def _spawn(self, run_id: uuid.UUID) -> None:
        task = asyncio.create_task(self.run(run_id), name=f"suite-run-{run_id}")
        self._tasks[run_id] = task
        task.add_done_callback(lambda _: self._tasks.pop(run_id, None))

    async def run(self, run_id: uuid.UUID, progress: Progress | None = None) -> None:
        """Judge every prompt of the run not judged yet, in order; then mark it done."""
        try:
            record = await self._record(run_id)
            pair = await self._pair(record.models) if record.models else None
            done = {r.prompt_index for r in record.results}
            for index, prompt in enumerate(record.prompts):
                if index not in done:
                    await self._judge_prompt(run_id, index, prompt["prompt"], pair)
                    done.add(index)
                if progress is not None:
                    progress(len(done), record.total)
            await self._runs.set_status(run_id, "done")
        except asyncio.CancelledError:
            await self._interrupted(run_id)
            raise
        except ShuttingDown:  # the server drains: resumable once it is back
            await self._interrupted(run_id)
        except Exception as exc:
            _log.exception("suite run %s failed", run_id)
            message = exc.message if isinstance(exc, ArenaError) else type(exc).__name__
            with contextlib.suppress(Exception):
                await self._runs.set_status(run_id, "failed", message)

    async def _interrupted(self, run_id: uuid.UUID) -> None:
        with contextlib.suppress(Exception):
            await self._runs.set_status(run_id, "interrupted")

    async def _judge_prompt(
        self,
        run_id: uuid.UUID,
        index: int,
        prompt: str,
        pair: tuple[ModelEntry, ModelEntry] | None,
    ) -> None:
        """One prompt: a headless round, its verdict, and the result row."""
        request = parse_command(ChatRequest, {"prompt": prompt, "sessionId": f"suite:{run_id}"})
        matchup_id: uuid.UUID | None = None
        try:
            round_ = await self._arena.start_round(
                request, options=RoundOptions(protocol="suite", pair=pair)
            )
            async with contextlib.aclosing(round_.events()) as events:
                async for _ in events:  # headless: read the round to its end, as a client would
                    pass
            matchup_id = uuid.UUID(round_.started.matchup_id)
            judgement, _ = await self._judge.judge(matchup_id, source="suite")
        except (StorageUnavailable, ShuttingDown):
            raise  # not the prompt's failure: the run stops, and resumes later
        except ArenaError as exc:
            await self._runs.add_result(
                run_id,
                index,
                matchup_id=matchup_id,  # the round ran when the judge failed
                outcome="failed",
                winner_model_id=None,
                error=exc.message,
            )
            return
        matchup = await self._repo.get_matchup(matchup_id)
        winner = (
            vote_outcome(matchup, judgement.vote).winner_model_id
            if matchup is not None and judgement.vote is not None
            else None
        )
        await self._runs.add_result(
            run_id,
            index,
            matchup_id=matchup_id,
            outcome=judgement.outcome,
            winner_model_id=winner,
            error=judgement.error,
        )

    async def _pair(self, names: Sequence[str]) -> tuple[ModelEntry, ModelEntry]:
        """The two enabled models a suite names (by id, display name or provider model id).

        Raises:
            InvalidRequest: a name matches no enabled model, or both name the same one.
            ModelNotMatched: (409 ``model_paused`` / ``model_archived``) a name matches no
                enabled model but a paused or archived one.
        """
        roster = await self._arena.playable_roster()
        found: list[ModelEntry] = []
        for name in names:
            wanted = name.strip().lower()
            model = next((m for m in roster if _names(m, wanted)), None)
            if model is None:
                held_back = await self._arena.held_back()
                held = next((h for h in held_back if _names(h.model, wanted)), None)
                if held is not None:
                    raise held.not_matched()
                raise InvalidRequest(
                    f"The suite names {name!r}, which is no enabled model",
                    details={"models": [f"no enabled model is {name!r}"]},
                )
            found.append(model)
        if found[0].id == found[1].id:
            raise InvalidRequest(
                "The suite's pair names one model twice",
                details={"models": ["must name two different models"]},
            )
        return found[0], found[1]

    async def _record(self, run_id: uuid.UUID) -> SuiteRunRecord:
        record = await self._runs.get(run_id)
        if record is None:
            raise NotFound("No suite run has this id", code="suite_run_not_found")
        return record

    async def get(self, run_id: uuid.UUID) -> SuiteRunView:
        return _run_view(await self._record(run_id))

    async def recent(self, suite: str | None = None) -> SuiteRunsView:
        return SuiteRunsView(runs=[_run_view(r) for r in await self._runs.recent(suite)])

    async def diff(self, a: uuid.UUID, b: uuid.UUID) -> SuiteDiffView:
        """Two runs prompt by prompt (matched by the prompt's text, in ``a``'s order)."""
        first, second = _run_view(await self._record(a)), _run_view(await self._record(b))
        by_prompt = {r.prompt: r for r in second.results}
        rows = []
        for result in first.results:
            other = by_prompt.pop(result.prompt, None)
            rows.append(
                SuiteDiffRow(
                    prompt=result.prompt, a=result, b=other, changed=_differs(result, other)
                )
            )
        rows += [SuiteDiffRow(prompt=p, a=None, b=r, changed=True) for p, r in by_prompt.items()]
        changed = sum(r.changed for r in rows)
        return SuiteDiffView(
            a=first, b=second, changed=changed, unchanged=len(rows) - changed, prompts=rows
        )

    async def close(self) -> None:
        """Stop the runs in flight; each is left ``interrupted`` (resumable)."""
        tasks = list(self._tasks.values())
        for task in tasks:
            task.cancel()
        await asyncio.gather(*tasks, return_exceptions=True)


def _differs(a: SuiteResultView, b: SuiteResultView | None) -> bool:
    if b is None:
        return True
    ties = ("tie", "both_bad")
    if a.outcome in ties and b.outcome in ties:
        return a.outcome != b.outcome
    return (a.winner, a.outcome in ties) != (b.winner, b.outcome in ties)


def _result_view(record: SuiteRunRecord, result: SuiteResultRecord) -> SuiteResultView:
    prompt = record.prompts[result.prompt_index]
    return SuiteResultView(
        index=result.prompt_index,
        prompt=prompt["prompt"],
        category=prompt.get("category"),
        reference=prompt.get("reference"),
        outcome=result.outcome,
        winner=result.winner_name,
        models=[n for n in (result.slot_a_name, result.slot_b_name) if n],
        matchup_id=str(result.matchup_id) if result.matchup_id else None,
        cost_usd=None if result.cost_usd is None else float(result.cost_usd),
        error=result.error,
    )


def _names(model: ModelEntry, wanted: str) -> bool:
    """Whether ``wanted`` (lower case) is ``model``'s id, display name or provider model id."""
    return wanted in (str(model.id), model.display_name.lower(), model.provider_model_id.lower())


def _run_view(record: SuiteRunRecord) -> SuiteRunView:
    tally: dict[str, list[int]] = {}
    for r in record.results:
        names = [n for n in (r.slot_a_name, r.slot_b_name) if n]
        for name in names:
            counts = tally.setdefault(name, [0, 0, 0])
            if r.outcome in ("tie", "both_bad"):
                counts[2] += 1
            elif r.winner_name is not None:
                counts[0 if name == r.winner_name else 1] += 1
    return SuiteRunView(
        run_id=str(record.id),
        suite=record.suite,
        status=record.status,
        total=record.total,
        completed=record.completed,
        progress=round(record.completed / record.total, 4) if record.total else 1.0,
        cost_usd=None if record.cost_usd is None else float(record.cost_usd),
        error=record.error,
        created_at=record.created_at,
        finished_at=record.finished_at,
        tally=sorted(
            (SuiteTally(model=m, wins=w, losses=lo, ties=t) for m, (w, lo, t) in tally.items()),
            key=lambda t: (-t.wins, t.losses, t.model),
        ),
        unparseable=sum(r.outcome == "unparseable" for r in record.results),
        failed=sum(r.outcome == "failed" for r in record.results),
        results=[_result_view(record, r) for r in record.results],
    )
