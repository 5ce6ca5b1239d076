"""A vote about to be recorded, whoever cast it: the one shape every vote path writes.

A person's vote (the API, the UI, a command in an OpenAI-compatible chat such as Open WebUI) and
the judge's (asked for by a request, a suite run or the auto-judge) all become a ``CastVote``
and go through one use case (``services.votes.VoteRecorder``): one statement path, one
unique-vote rule (a matchup has at most one vote), one observer call. ``method`` says whose vote
it is (the population the rating process fits: ``human`` or ``judge``), ``source`` where it came
from (the ``source`` label of ``arena_votes_total``).

========== ============= ======================================================================
method     source        cast by
========== ============= ======================================================================
human      ``api``       ``POST /api/arena/vote``
human      ``ui``        the arena page's vote bar
human      ``chat``      a vote command in an OpenAI-compatible chat (Open WebUI, any client)
judge      ``request``   ``POST /api/arena/matchups/{id}/judge``
judge      ``suite``     a suite run's judge
judge      ``autojudge`` the auto-judge of shadow rounds
========== ============= ======================================================================
"""

from __future__ import annotations

import uuid
from dataclasses import dataclass
from typing import Any, Literal

from arena_api.core.models import Slot
from arena_api.core.populations import Method
from arena_api.core.records import MatchupRecord, Vote, vote_outcome

__all__ = [
    "CastVote",
    "HumanSource",
    "ReviewResult",
    "ReviewVerdict",
    "VoteMethod",
    "VoteSource",
    "cast_vote",
]

#: Whose vote it is (``preferences.method``).
VoteMethod = Method
HumanSource = Literal["api", "ui", "chat"]
VoteSource = Literal["api", "ui", "chat", "request", "suite", "autojudge"]


@dataclass(frozen=True)
class CastVote:
    """One vote on one matchup, its winner derived from the stored slots (never a client's)."""

    matchup_id: uuid.UUID
    vote: Vote
    winner_model_id: uuid.UUID | None
    selected_slot: Slot | None
    method: VoteMethod
    source: VoteSource
    #: The voter's anonymous session (people only).
    session_id: str | None = None
    #: Why the vote was cast (``core.reasons``): checked, in the configured order; people only.
    reasons: tuple[str, ...] = ()
    #: The signed-in person who cast it (a ``users`` id), if one is.
    user_id: str | None = None

    def meta(self) -> dict[str, Any]:
        """``preferences.position_bias_meta``: the slot picked, and whether a judge picked it."""
        meta: dict[str, Any] = {"selectedSlot": self.selected_slot}
        if self.method == "judge":
            meta["judge"] = True
        return meta


def cast_vote(
    matchup: MatchupRecord,
    vote: Vote,
    *,
    method: VoteMethod,
    source: VoteSource,
    session_id: str | None = None,
    reasons: tuple[str, ...] = (),
    user_id: str | None = None,
) -> CastVote:
    """The vote ``vote`` on ``matchup``, its winner taken from the matchup's slots; ``reasons``
    already checked (``VoteReasons.check``)."""
    outcome = vote_outcome(matchup, vote)
    return CastVote(
        matchup_id=matchup.id,
        vote=vote,
        winner_model_id=outcome.winner_model_id,
        selected_slot=outcome.selected_slot,
        method=method,
        source=source,
        session_id=session_id,
        reasons=reasons,
        user_id=user_id,
    )


#: What became of a reviewer's verdict: recorded, or why not (already given, the item has all
#: its reviews, no such item, not one of the queue's reviewers).
ReviewResult = Literal["recorded", "duplicate", "complete", "not_found", "not_reviewer"]


@dataclass(frozen=True)
class ReviewVerdict:
    """An expert reviewer's verdict on one item of a review queue (``services.review``): one
    per reviewer and item, an item taking at most its queue's k verdicts (skips apart)."""

    item_id: uuid.UUID
    reviewer_id: str
    vote: Vote
    reasons: tuple[str, ...] = ()
    comment: str | None = None
