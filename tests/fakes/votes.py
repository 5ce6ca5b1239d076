"""In-memory ``VoteStore`` and ``RoundObserver``: the vote rules without a database."""

from __future__ import annotations

import uuid
from dataclasses import dataclass, field

from arena_api.core.judging import Judgement
from arena_api.core.ports import ChatVoteResult, NoObserver
from arena_api.core.votes import CastVote, ReviewResult, ReviewVerdict

__all__ = ["FakeVoteStore", "VoteCounter"]


@dataclass
class FakeVoteStore:
    """One vote per matchup, chat claims by command digest, verdicts kept in order."""

    votes: dict[uuid.UUID, CastVote] = field(default_factory=dict)
    claims: dict[str, tuple[uuid.UUID, str | None]] = field(default_factory=dict)
    verdicts: list[tuple[Judgement, bool]] = field(default_factory=list)
    reviews: list[ReviewVerdict] = field(default_factory=list)

    def link(self, chat_key: str, matchup_id: uuid.UUID) -> None:
        """The chat now shows ``matchup_id``, its vote command not yet claimed."""
        self.claims[chat_key] = (matchup_id, None)

    async def record(self, vote: CastVote) -> bool:
        if vote.matchup_id in self.votes:
            return False
        self.votes[vote.matchup_id] = vote
        return True

    async def record_review(self, verdict: ReviewVerdict) -> ReviewResult:
        if any(
            r.item_id == verdict.item_id and r.reviewer_id == verdict.reviewer_id
            for r in self.reviews
        ):
            return "duplicate"
        self.reviews.append(verdict)
        return "recorded"

    async def recent_user_votes(self, user_id: str) -> tuple[int, float]:
        """Every vote of the user counts as recent here; the oldest leaves in an hour."""
        count = sum(v.user_id == user_id for v in self.votes.values())
        return count, 3600.0

    async def record_command(self, vote: CastVote, chat_key: str, message: str) -> ChatVoteResult:
        matchup_id, claimed_by = self.claims.get(chat_key, (None, None))
        if matchup_id != vote.matchup_id:
            return "moved"
        if claimed_by is not None:
            return "sibling" if claimed_by == message else "voted"
        self.claims[chat_key] = (matchup_id, message)
        return "recorded" if await self.record(vote) else "voted"

    async def record_judgement(self, judgement: Judgement, vote: CastVote | None) -> bool:
        recorded = vote is not None and await self.record(vote)
        self.verdicts.append((judgement, recorded))
        return recorded


class VoteCounter(NoObserver):
    """Counts the votes reported, by (outcome, method, source)."""

    def __init__(self) -> None:
        self.counted: dict[tuple[str, str, str], int] = {}

    def vote_recorded(self, outcome: str, method: str, source: str) -> None:
        key = (outcome, method, source)
        self.counted[key] = self.counted.get(key, 0) + 1
