"""``arena judge backfill``: ask the judge about rounds people already voted on, so that it can
be checked against them (``ReadService.judge_agreement``).

The rounds are those people's board counts (blind, a person's vote other than a skip) whose text
is still stored, with both answers and no verdict yet (one whose judge call failed may be asked
again), newest first. Each goes through ``JudgeService.judge`` with the source ``backfill``: the
same prompt, reading and storage as every verdict, stored with ``recorded = false`` and never a
vote, so the person's vote and every board stay as they were.

Before any call, ``plan`` says what the run will cost: each round's prompt tokens estimated from
its stored text as the judge would be sent it (every reading of it, twice with ``swap``), the
answer tokens from what this judge wrote per reading before (``DEFAULT_READING_TOKENS`` until
its first verdict), at the judge's prices in the roster.
"""

from __future__ import annotations

import uuid
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field
from decimal import Decimal

from arena_api.core.boards import check_category
from arena_api.core.cost import price
from arena_api.core.errors import InvalidRequest, NotFound
from arena_api.core.judging import Outcome
from arena_api.core.ports import BackfillRounds
from arena_api.services.judge import JudgeService

__all__ = [
    "DEFAULT_READING_TOKENS",
    "FAILURES_IN_A_ROW",
    "BackfillPlan",
    "BackfillReport",
    "JudgeBackfill",
]

#: What a reading is expected to write before the judge has written one: the JSON it is asked
#: for with two or three sentences of reasoning is about 60 to 120 tokens; judges that think
#: aloud write more.
DEFAULT_READING_TOKENS = 200
#: The run stops after this many failed calls in a row: the judge's endpoint is down, and every
#: further round would fail the same way.
FAILURES_IN_A_ROW = 3


@dataclass(frozen=True)
class BackfillPlan:
    """The rounds a run will judge and what it is estimated to cost.

    Attributes:
        judge: the judge's display name.
        matchup_ids: the rounds, newest first.
        input_tokens: prompt tokens over every reading of every round (estimated).
        output_tokens: answer tokens over every reading (from ``output_per_reading``).
        output_per_reading: what one reading is expected to write.
        measured: whether ``output_per_reading`` comes from this judge's stored verdicts.
        cost_usd: at the judge's prices; ``None`` when the roster gives it none.
    """

    judge: str
    matchup_ids: tuple[uuid.UUID, ...]
    input_tokens: int
    output_tokens: int
    output_per_reading: float
    measured: bool
    cost_usd: Decimal | None


@dataclass
class BackfillReport:
    """What a run did: the verdicts by outcome, what they cost, and why it stopped early."""

    outcomes: Counter[Outcome] = field(default_factory=Counter)
    #: Rounds gone before their turn came (a session forgotten meanwhile).
    vanished: int = 0
    input_tokens: int = 0
    output_tokens: int = 0
    #: ``None`` when a verdict had no price.
    cost_usd: Decimal | None = Decimal(0)
    #: Why the run stopped before its last round, if it did.
    stopped: str | None = None

    @property
    def judged(self) -> int:
        """Rounds the judge was asked about (every outcome, failures included)."""
        return sum(self.outcomes.values())


class JudgeBackfill:
    def __init__(self, *, judge: JudgeService, rounds: BackfillRounds) -> None:
        self._judge = judge
        self._rounds = rounds

    async def plan(self, limit: int, category: str | None = None) -> BackfillPlan:
        """The newest ``limit`` rounds to judge (in one slice of prompts, or any) and their
        estimated cost; nothing is called.

        Raises:
            ArenaError: 404 ``judge_not_configured``.
            InvalidRequest: ``limit`` is below 1, or ``category`` names no slice of prompts.
        """
        judge = self._judge.require_judge()
        if limit < 1:
            raise InvalidRequest("limit must be at least 1", details={"limit": ["at least 1"]})
        ids = await self._rounds.voted_unjudged(limit, check_category(category))
        input_tokens = 0
        for matchup_id in ids:
            input_tokens += await self._judge.prompt_tokens(matchup_id)
        measured = await self._rounds.output_tokens_per_reading(
            judge.model.provider, judge.model.provider_model_id
        )
        per_reading = DEFAULT_READING_TOKENS if measured is None else measured
        output_tokens = round(per_reading * self._judge.readings * len(ids))
        return BackfillPlan(
            judge=judge.model.display_name,
            matchup_ids=tuple(ids),
            input_tokens=input_tokens,
            output_tokens=output_tokens,
            output_per_reading=per_reading,
            measured=measured is not None,
            cost_usd=price(input_tokens, output_tokens, judge.model.prices) if ids else None,
        )

    async def run(
        self, plan: BackfillPlan, progress: Callable[[int], None] | None = None
    ) -> BackfillReport:
        """Ask the judge about each round of ``plan``, one after another; ``progress`` hears of
        each round done. Stops early after ``FAILURES_IN_A_ROW`` failed calls.

        Raises:
            ArenaError: 404 ``judge_not_configured``.
        """
        report = BackfillReport()
        failures = 0
        for matchup_id in plan.matchup_ids:
            try:
                judgement, _ = await self._judge.judge(matchup_id, source="backfill")
            except NotFound:
                report.vanished += 1
            else:
                report.outcomes[judgement.outcome] += 1
                report.input_tokens += judgement.input_tokens
                report.output_tokens += judgement.output_tokens
                if report.cost_usd is not None and judgement.cost_usd is not None:
                    report.cost_usd += judgement.cost_usd
                elif judgement.input_tokens or judgement.output_tokens:
                    report.cost_usd = None  # tokens spent at no known price
                failures = failures + 1 if judgement.outcome == "failed" else 0
                if failures >= FAILURES_IN_A_ROW:
                    report.stopped = (
                        f"the judge failed {failures} times in a row ({judgement.error})"
                    )
            if progress is not None:
                progress(1)
            if report.stopped is not None:
                break
        return report
