"""Several replicas' auto-judges share one rate: each asks the shared pace before it judges."""

from __future__ import annotations

import asyncio
import uuid
from typing import Any

import pytest

from arena_api.core.ratelimit import Limit, RateLimiter
from arena_api.services.autojudge import AutoJudge


class Queue:
    def __init__(self) -> None:
        self.claimed = 0

    async def claim_next(self) -> uuid.UUID | None:
        self.claimed += 1
        return uuid.uuid4()

    async def finish(self, matchup_id: uuid.UUID) -> None:
        return None


class Judge:
    async def judge(self, matchup_id: uuid.UUID, *, source: str) -> tuple[Any, None]:
        return type("Judgement", (), {"outcome": "A", "error": None})(), None


async def test_replicas_sharing_a_pace_judge_once_per_interval_between_them() -> None:
    clock = [0.0]
    pace = RateLimiter((Limit(1, 10.0),), lambda: clock[0])
    queues = [Queue(), Queue()]
    slept: list[list[float]] = [[], []]

    def sleeper(index: int) -> Any:
        async def sleep(seconds: float) -> None:
            slept[index].append(seconds)
            if len(slept[index]) >= 6:
                raise asyncio.CancelledError
            await asyncio.sleep(0)

        return sleep

    judges = [
        AutoJudge(
            judge=Judge(),  # type: ignore[arg-type]
            queue=queue,  # type: ignore[arg-type]
            rate_per_minute=6,
            sleep=sleeper(index),
            pace=pace,
        )
        for index, queue in enumerate(queues)
    ]
    with pytest.raises(asyncio.CancelledError):
        await asyncio.gather(*(judge.run() for judge in judges))

    # The clock never moved: the first replica's judgement took the interval's budget and the
    # other replica only waited (as long as the pace told it) instead of judging too.
    assert sorted(judge.judged for judge in judges) == [0, 1]
    assert sum(queue.claimed for queue in queues) == 1
    waiting = slept[[judge.judged for judge in judges].index(0)]
    assert waiting and all(seconds == 10 for seconds in waiting)
