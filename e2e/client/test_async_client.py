"""``arena_client.AsyncArena`` against a real ``arena serve``: the same methods as ``Arena``,
awaited, including rounds streamed side by side on one client."""

from __future__ import annotations

import asyncio
import time
import uuid
from collections.abc import Callable

import pytest

from arena_client import (
    AsyncArena,
    AsyncRound,
    Conflict,
    ConnectionLost,
    MatchupDone,
    MatchupStarted,
    NotFound,
    RateLimited,
    Retry,
    Steered,
    Token,
)
from e2e.client.conftest import TOKEN, DroppingRelay
from tests.support import ProductProcess, free_port

pytestmark = [pytest.mark.slow]


async def test_rounds_stream_side_by_side_vote_and_follow_up(
    client_product: ProductProcess,
) -> None:
    async with AsyncArena(client_product.url) as arena:
        rounds = await asyncio.gather(*(arena.round(f"Explain topic {i}") for i in range(3)))
        await asyncio.gather(*(r.wait() for r in rounds))
        assert len({r.matchup_id for r in rounds}) == 3
        assert all(r.left and r.right for r in rounds)

        round_ = await arena.round("Explain JWTs in simple terms")
        events = [event async for event in round_]
        assert isinstance(events[0], MatchupStarted) and isinstance(events[-1], MatchupDone)
        streamed = "".join(e.token for e in events if isinstance(e, Token) and e.slot == "B")
        assert streamed == round_.right
        reveal = await round_.vote("right")
        assert reveal.accepted and reveal.models.b.display_name.startswith("Mock ")
        assert (await arena.matchup(round_.matchup_id)).vote == "right"
        follow = await (await round_.follow_up("And in Python?")).wait()
        assert follow.conversation_id == round_.conversation_id
        view = await arena.conversation(round_.conversation_id or "", session=round_.session)
        assert len(view.turns) == 2
        with pytest.raises(NotFound):
            await arena.matchup(uuid.uuid4())


async def test_stop_steer_judge_and_join(client_product: ProductProcess) -> None:
    async with AsyncArena(client_product.url) as arena:
        round_ = await arena.round("Write a long poem about rivers")
        async for event in round_:
            if isinstance(event, Token):
                break
        assert await round_.stop() is True
        await round_.wait()
        assert round_.finished

        steered = await arena.round("Describe a forest")
        async for event in steered:
            if isinstance(event, Token):
                break
        assert await steered.steer("Use short sentences") is True
        assert any(isinstance(e, Steered) for e in await _rest(steered))
        verdict = await steered.judge()
        assert verdict.accepted and verdict.judge.name == "Mock Judge"

        a, b = await asyncio.gather(
            arena.join("Name two planets", key="async-columns", session="py-async", slot="A"),
            arena.join("Name two planets", key="async-columns", session="py-async", slot="B"),
        )
        await asyncio.gather(a.wait(), b.wait())
        assert a.matchup_id == b.matchup_id and a.left and b.right
        assert (await a.vote("both_good")).accepted
        with pytest.raises(Conflict):
            await b.vote("left")


async def _rest(round_: AsyncRound) -> list[object]:
    return [event async for event in round_]


async def test_reads_suites_and_export(
    client_product: ProductProcess, guarded_product: ProductProcess
) -> None:
    async with AsyncArena(client_product.url) as arena:
        await (await (await arena.round("Prove that sqrt(2) is irrational")).wait()).vote("left")
        board = await arena.leaderboard(votes="all")
        assert sum(e.total_votes for e in board.models) > 0
        reads = arena.analytics
        assert (await reads.summary()).total_votes > 0
        assert (await reads.categories(votes="all")).categories is not None
        assert (await reads.head_to_head(category="math")).pairs is not None
        assert (await reads.model_metrics()).models
        assert (await reads.activity(bucket="hour")).bucket == "hour"
        assert (await reads.cost(bucket="month")).bucket == "month"
        assert (await reads.style_control()).models is not None
        assert (await reads.rating_history(points=5)).models is not None
        assert (await reads.reasons()).reasons is not None
        assert (await reads.judge_agreement()).n >= 0
        assert (await arena.vote_reasons()).reasons
        assert (await arena.health()).status == "ok"
        assert (await arena.models()).data

        played = await (await arena.round("What is a functor?")).wait()
        token = played.started.matchup_token or ""
        assert (await arena.vote(played.matchup_id, token, "both_good")).accepted
        stop = {"type": "stop", "matchupId": played.matchup_id}
        assert await arena.control(stop) is False

        progress: list[int] = []
        run = await arena.suites.run(
            "example", progress=lambda r: progress.append(r.completed), poll=0.2, timeout=300
        )
        assert run.status == "done" and progress[-1] == run.total
        assert "example" in [s.name for s in (await arena.suites.list()).suites]
        assert (await arena.suites.get(run.run_id)).status == "done"
        assert run.run_id in {r.run_id for r in (await arena.suites.runs()).runs}
        assert (await arena.suites.diff(run.run_id, run.run_id)).a is not None
        with pytest.raises(Conflict):
            await arena.suites.resume(run.run_id)
    async with AsyncArena(guarded_product.url, TOKEN, retry=True) as arena:
        rows = [row async for row in arena.export()]
        assert all("outcome" in row for row in rows)


async def test_a_dropped_stream_and_an_opt_in_retry(
    client_product: ProductProcess,
    guarded_product: ProductProcess,
    relay_to: Callable[[int], DroppingRelay],
) -> None:
    async with AsyncArena(f"http://127.0.0.1:{free_port()}") as nowhere:
        with pytest.raises(ConnectionLost) as refused:
            await nowhere.health()
        assert refused.value.code == "connect_failed"

    relay = relay_to(1_500)
    async with AsyncArena(relay.url) as arena:
        round_ = await arena.round("Explain vector clocks")
        with pytest.raises(ConnectionLost):
            await round_.wait()
    async with AsyncArena(client_product.url) as arena:
        round_._arena = arena
        await round_.recover(timeout=60)
        assert round_.left and round_.right and (await round_.vote("skip")).accepted

    async with AsyncArena(guarded_product.url, TOKEN) as arena:
        with pytest.raises(RateLimited) as limited:
            for _ in range(5):
                await (await arena.round("Quick one")).wait()
        assert limited.value.retry_after
    await asyncio.sleep(1.1)
    async with AsyncArena(guarded_product.url, TOKEN, retry=Retry(attempts=10)) as arena:
        started = time.monotonic()
        for i in range(5):
            await (await arena.round(f"Patient async question {i}")).wait()
        assert time.monotonic() - started >= 1.0
