"""``JudgeBackfill`` over in-memory ports: the estimate before any call, the judge asked through
``JudgeService`` without ever casting a vote, and a run that stops when the judge keeps
failing."""

from __future__ import annotations

import dataclasses
import uuid
from decimal import Decimal
from typing import Any, cast

import pytest

from arena_api.core.cost import estimate_prompt_tokens, price
from arena_api.core.errors import ArenaError, InvalidRequest, ProviderError
from arena_api.core.judging import DEFAULT_PROMPT, judge_messages
from arena_api.core.models import Prices
from arena_api.core.records import MatchupRecord, StoredAnswer
from arena_api.services.judge import JudgeModel, JudgeService
from arena_api.services.judge_backfill import (
    DEFAULT_READING_TOKENS,
    FAILURES_IN_A_ROW,
    JudgeBackfill,
)
from arena_api.services.votes import VoteRecorder
from tests.fakes.ports import FakeBoardReads, FakeProviders, ScriptedProvider, model
from tests.fakes.votes import FakeVoteStore, VoteCounter

PRICES = Prices(input_per_mtok=Decimal("2.5"), output_per_mtok=Decimal(10))
VERDICT = ('{"reasoning": "Clearer.", "verdict": "A"}',)


class Rounds:
    """``BackfillRounds`` from a fixed list, and what the judge wrote before."""

    def __init__(self, ids: list[uuid.UUID], per_reading: float | None = None) -> None:
        self.ids = ids
        self.per_reading = per_reading
        self.asked: list[tuple[int, str | None]] = []

    async def voted_unjudged(self, limit: int, category: str | None) -> list[uuid.UUID]:
        self.asked.append((limit, category))
        return self.ids[:limit]

    async def output_tokens_per_reading(self, provider: str, model_id: str) -> float | None:
        return self.per_reading


def _reads(count: int) -> FakeBoardReads:
    """``count`` voted rounds with a prompt and two answers each."""
    reads = FakeBoardReads()
    for n in range(count):
        matchup_id = uuid.UUID(int=n + 1)
        reads.matchups[matchup_id] = MatchupRecord(
            id=matchup_id,
            conversation_id=None,
            turn_index=None,
            mode="blind",
            token_hash="-",
            slot_a=model("alpha"),
            slot_b=model("beta"),
            vote="right",
        )
        reads.contents[matchup_id] = (
            f"Question {n}: what is a JWT?",
            (
                StoredAnswer("A", uuid.uuid4(), "A signed token.", None),
                StoredAnswer("B", uuid.uuid4(), "A JSON Web Token, signed " * (n + 1), None),
            ),
        )
    return reads


def _backfill(
    reads: FakeBoardReads,
    rounds: Rounds,
    provider: ScriptedProvider,
    *,
    swap: bool = False,
    prices: Prices | None = PRICES,
    configured: bool = True,
) -> tuple[JudgeBackfill, FakeVoteStore, VoteCounter]:
    store, counter = FakeVoteStore(), VoteCounter()
    judge_model = dataclasses.replace(model("judge"), prices=prices)
    judge = JudgeService(
        arena=cast(Any, None),  # only a voter's request goes through the arena
        repository=reads,
        votes=VoteRecorder(store, counter),
        providers=FakeProviders(provider),
        judge=JudgeModel(judge_model, DEFAULT_PROMPT, swap=swap) if configured else None,
        timeout_s=5,
    )
    return JudgeBackfill(judge=judge, rounds=rounds), store, counter


@pytest.mark.parametrize(
    "swap", [pytest.param(False, id="one-reading"), pytest.param(True, id="swapped")]
)
async def test_the_estimate_reads_the_stored_text_as_the_judge_would_be_sent_it(
    swap: bool,
) -> None:
    reads = _reads(3)
    rounds = Rounds(list(reads.matchups))
    backfill, _, _ = _backfill(reads, rounds, ScriptedProvider(default=VERDICT), swap=swap)

    plan = await backfill.plan(2, "coding")

    readings = 2 if swap else 1
    expected_input = readings * sum(
        estimate_prompt_tokens(
            judge_messages(
                DEFAULT_PROMPT,
                "",
                reads.contents[m][0],
                *(a.content for a in reads.contents[m][1]),
            )
        )
        for m in list(reads.matchups)[:2]
    )
    assert rounds.asked == [(2, "coding")]
    assert plan.matchup_ids == tuple(list(reads.matchups)[:2]) and plan.judge == "Judge"
    assert plan.input_tokens == expected_input
    assert plan.output_tokens == 2 * readings * DEFAULT_READING_TOKENS and not plan.measured
    assert plan.cost_usd == price(expected_input, plan.output_tokens, PRICES)


async def test_the_estimate_uses_what_the_judge_wrote_before_and_no_price_is_no_cost() -> None:
    reads = _reads(2)
    backfill, _, _ = _backfill(
        reads, Rounds(list(reads.matchups), per_reading=17.5), ScriptedProvider(), prices=None
    )

    plan = await backfill.plan(10)

    assert plan.measured and plan.output_per_reading == 17.5
    assert plan.output_tokens == 35 and plan.cost_usd is None


async def test_the_judge_is_asked_about_each_round_and_never_casts_a_vote() -> None:
    reads = _reads(3)
    provider = ScriptedProvider(default=VERDICT)
    backfill, store, counter = _backfill(reads, Rounds(list(reads.matchups)), provider)
    done: list[int] = []

    report = await backfill.run(await backfill.plan(3), done.append)

    # The judge picks the answer it read first, in an order drawn per round: a slot each time.
    assert report.judged == 3 and set(report.outcomes) <= {"A", "B"}
    assert done == [1, 1, 1] and report.stopped is None and report.vanished == 0
    assert len(provider.calls) == 3
    # Stored as second opinions: none claimed the matchup's vote, nothing was counted as one
    # (the fake store holds no vote, so any cast vote would have been recorded).
    assert [(j.source, recorded) for j, recorded in store.verdicts] == [("backfill", False)] * 3
    assert store.votes == {} and counter.counted == {}
    assert report.input_tokens == sum(j.input_tokens for j, _ in store.verdicts)
    costs = [j.cost_usd for j, _ in store.verdicts if j.cost_usd is not None]
    assert len(costs) == 3 and report.cost_usd == sum(costs, Decimal(0)) > 0


async def test_a_run_stops_when_the_judge_keeps_failing() -> None:
    reads = _reads(FAILURES_IN_A_ROW + 2)
    provider = ScriptedProvider(default=(), failures={"judge": ProviderError("down")})
    backfill, store, _ = _backfill(reads, Rounds(list(reads.matchups)), provider)
    done: list[int] = []

    report = await backfill.run(await backfill.plan(10), done.append)

    assert report.outcomes == {"failed": FAILURES_IN_A_ROW}
    assert report.stopped is not None and "down" in report.stopped
    assert len(done) == FAILURES_IN_A_ROW and len(store.verdicts) == FAILURES_IN_A_ROW


async def test_a_round_gone_before_its_turn_is_counted_and_passed_over() -> None:
    reads = _reads(2)
    rounds = Rounds(list(reads.matchups))
    backfill, store, _ = _backfill(reads, rounds, ScriptedProvider(default=VERDICT))
    plan = await backfill.plan(2)
    del reads.matchups[plan.matchup_ids[0]]

    report = await backfill.run(plan)

    assert report.vanished == 1 and report.judged == 1 and len(store.verdicts) == 1


@pytest.mark.parametrize(
    ("limit", "category", "configured", "error", "code"),
    [
        pytest.param(5, None, False, ArenaError, "judge_not_configured", id="no-judge"),
        pytest.param(0, None, True, InvalidRequest, "invalid_request", id="no-rounds"),
        pytest.param(5, "cooking", True, InvalidRequest, "invalid_request", id="bad-category"),
    ],
)
async def test_a_plan_that_cannot_be_made_says_why(
    limit: int, category: str | None, configured: bool, error: type[ArenaError], code: str
) -> None:
    reads = _reads(1)
    rounds = Rounds(list(reads.matchups))
    backfill, _, _ = _backfill(reads, rounds, ScriptedProvider(), configured=configured)

    with pytest.raises(error) as raised:
        await backfill.plan(limit, category)

    assert raised.value.code == code and rounds.asked == []
