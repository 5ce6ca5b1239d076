"""The shadow auto-judge: in ``ARENA_EXPOSURE=shadow`` no person sees the challenger's answer,
so the judge votes on shadow matchups in the background, at most ``ARENA_AUTOJUDGE_RATE`` per
minute, and an incumbent/challenger pair gets a judge's rating with no human vote.

One loop per server, supervised: a failure is logged and the loop goes on after a pause. Several
replicas (``REDIS_URL``) each run one and share the rate through ``pace``, a limiter of one
judgement per interval counted in Redis. Work
comes from ``AutoJudgeQueue`` (oldest first, each matchup claimed under a lease), so a restart
resumes where the last run stopped: a matchup judged is never judged again, and one whose
judgement was cut short is claimed again once its lease runs out. A judge whose endpoint fails
leaves the claim to lapse too, and gives up on that matchup after the queue's few attempts.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Awaitable, Callable

from arena_api.core.errors import ArenaError
from arena_api.core.ports import AutoJudgeQueue
from arena_api.core.ratelimit import Limiter
from arena_api.services.judge import JudgeService

__all__ = ["AutoJudge"]

_log = logging.getLogger(__name__)

#: How long the loop rests after an error it did not expect (a bug, the database away).
FAILURE_PAUSE_S = 5.0
#: The shared limiter's group and client: the whole arena has one budget.
_PACE = "autojudge"
#: The longest wait for new shadow matchups when the queue is empty.
IDLE_POLL_S = 10.0


class AutoJudge:
    def __init__(
        self,
        *,
        judge: JudgeService,
        queue: AutoJudgeQueue,
        rate_per_minute: float,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
        pace: Limiter | None = None,
    ) -> None:
        self._judge = judge
        self._queue = queue
        self._interval_s = 60.0 / rate_per_minute
        self._sleep = sleep
        self._pace = pace
        self.judged = 0

    async def step(self) -> bool:
        """Judge the next unjudged shadow matchup, if any: whether there was one."""
        matchup_id = await self._queue.claim_next()
        if matchup_id is None:
            return False
        try:
            judgement, _ = await self._judge.judge(matchup_id, source="autojudge")
        except ArenaError as exc:
            _log.warning("auto-judge: matchup %s not judged (%s): %s", matchup_id, exc.code, exc)
            return True
        if judgement.outcome == "failed":
            _log.warning("auto-judge: the judge failed on %s: %s", matchup_id, judgement.error)
            return True  # the claim lapses and the matchup is tried again
        await self._queue.finish(matchup_id)
        self.judged += 1
        return True

    async def run(self) -> None:
        """Judge forever, one matchup per interval; cancel to stop."""
        while True:
            try:
                refusal = None if self._pace is None else await self._pace.check(_PACE, _PACE)
                if refusal is not None:  # another replica judged within the interval
                    await self._sleep(refusal.retry_after_s)
                    continue
                found = await self.step()
            except asyncio.CancelledError:
                raise
            except Exception:
                _log.exception("auto-judge: step failed; trying again shortly")
                await self._sleep(FAILURE_PAUSE_S)
                continue
            await self._sleep(self._interval_s if found else min(IDLE_POLL_S, self._interval_s))
