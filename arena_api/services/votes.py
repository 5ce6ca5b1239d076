"""Recording a vote: the one use case every vote goes through (``core.votes`` lists who casts
them).

Each method hands one ``CastVote`` to the ``VoteStore`` (where the one statement that inserts a
vote lives), which claims the matchup's one vote; only a vote that was recorded is reported to
the observer, as ``arena_votes_total{outcome, method, source}``. A vote command in a chat and a
judge's verdict have a companion row written in the same transaction (the chat's claim, the
verdict), hence their own methods.
"""

from __future__ import annotations

import math

from arena_api.core.errors import VoteError
from arena_api.core.judging import Judgement
from arena_api.core.ports import ChatVoteResult, RoundObserver, VoteStore
from arena_api.core.votes import CastVote, ReviewResult, ReviewVerdict

__all__ = ["VoteRecorder"]


class VoteRecorder:
    """Records votes and reports each one recorded.

    Args:
        store: where votes are written.
        observer: told of every vote recorded.
    """

    def __init__(self, store: VoteStore, observer: RoundObserver, *, user_cap: int = 0) -> None:
        """``user_cap``: the most votes a signed-in person may cast in a day (0: no cap)."""
        self._store = store
        self._observer = observer
        self._user_cap = user_cap

    async def record(self, vote: CastVote) -> bool:
        """Record ``vote``; False when the matchup already had one.

        Raises:
            VoteError: 429 ``user_vote_cap``, a signed-in person past ``user_cap`` votes in the
                last day (nothing stored; ``retry_after_s`` says when the next one counts).
        """
        if self._user_cap and vote.user_id is not None:
            count, wait_s = await self._store.recent_user_votes(vote.user_id)
            if count >= self._user_cap:
                refusal = VoteError(
                    f"You have cast {count} votes in the last day, the most this arena takes "
                    "from one person; the next one counts once the oldest is a day old",
                    status=429,
                    code="user_vote_cap",
                )
                refusal.retry_after_s = max(1, math.ceil(wait_s))
                raise refusal
        return self._observed(vote, await self._store.record(vote))

    async def record_command(self, vote: CastVote, chat_key: str, message: str) -> ChatVoteResult:
        """Record ``vote`` for the chat command digested as ``message`` (once per command, however
        many copies of it arrive); ``recorded`` when this call recorded it."""
        result = await self._store.record_command(vote, chat_key, message)
        self._observed(vote, result == "recorded")
        return result

    async def record_review(self, verdict: ReviewVerdict) -> ReviewResult:
        """Record an expert reviewer's verdict (review queues); ``recorded``, or why not."""
        result = await self._store.record_review(verdict)
        if result == "recorded":
            self._observer.vote_recorded(verdict.vote, "reviewer", "review")
        return result

    async def record_judgement(self, judgement: Judgement, vote: CastVote | None) -> bool:
        """Store ``judgement`` and the vote it makes, if any; True when that vote was recorded."""
        recorded = await self._store.record_judgement(judgement, vote)
        return vote is not None and self._observed(vote, recorded)

    def _observed(self, vote: CastVote, recorded: bool) -> bool:
        if recorded:
            self._observer.vote_recorded(vote.vote, vote.method, vote.source)
        return recorded
