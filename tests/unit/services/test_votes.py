"""The one vote path's rules, on in-memory fakes: one vote per matchup, one count per vote."""

from __future__ import annotations

import uuid
from typing import Any

import pytest

from arena_api.core.errors import VoteError
from arena_api.core.judging import Judgement
from arena_api.core.models import ModelEntry
from arena_api.core.records import MatchupRecord
from arena_api.core.votes import ReviewVerdict, cast_vote
from arena_api.services.votes import VoteRecorder
from tests.fakes.votes import FakeVoteStore, VoteCounter

A = ModelEntry(id=uuid.UUID(int=2), display_name="Alpha", provider="mock", provider_model_id="a")
B = ModelEntry(id=uuid.UUID(int=1), display_name="Beta", provider="mock", provider_model_id="b")


def _matchup(mode: str = "blind") -> MatchupRecord:
    return MatchupRecord(
        id=uuid.uuid4(),
        mode=mode,  # type: ignore[arg-type]
        token_hash="",
        conversation_id=None,
        turn_index=None,
        slot_a=A,
        slot_b=B,
        vote=None,
    )


def _judgement(matchup: MatchupRecord, vote: str | None) -> Judgement:
    return Judgement(
        matchup_id=matchup.id,
        source="suite",
        judge_name="Judge",
        judge_provider="mock",
        judge_model_id="judge",
        outcome="A" if vote else "failed",
        vote=vote,  # type: ignore[arg-type]
        swapped=False,
        readings=(),
        reasoning="",
    )


@pytest.fixture
def store() -> FakeVoteStore:
    return FakeVoteStore()


@pytest.fixture
def counter() -> VoteCounter:
    return VoteCounter()


@pytest.fixture
def recorder(store: FakeVoteStore, counter: VoteCounter) -> VoteRecorder:
    return VoteRecorder(store, counter)


@pytest.mark.parametrize(
    ("vote", "winner", "slot"),
    [
        pytest.param("left", A.id, "A", id="left-is-slot-A"),
        pytest.param("right", B.id, "B", id="right-is-slot-B"),
        pytest.param("both_good", None, None, id="tie"),
        pytest.param("both_bad", None, None, id="both-bad"),
        pytest.param("skip", None, None, id="skip"),
    ],
)
def test_a_cast_vote_takes_its_winner_from_the_matchups_slots(
    vote: str, winner: uuid.UUID | None, slot: str | None
) -> None:
    matchup = _matchup()

    cast = cast_vote(matchup, vote, method="human", source="api", session_id="s")  # type: ignore[arg-type]

    assert (cast.winner_model_id, cast.selected_slot) == (winner, slot)
    assert cast.meta() == {"selectedSlot": slot}


def test_a_judges_vote_is_marked_as_the_judges_in_its_meta() -> None:
    cast = cast_vote(_matchup(), "left", method="judge", source="autojudge")

    assert cast.meta() == {"selectedSlot": "A", "judge": True}


async def test_a_recorded_vote_is_counted_under_its_method_and_source(
    recorder: VoteRecorder, counter: VoteCounter
) -> None:
    vote = cast_vote(_matchup(), "right", method="human", source="ui")

    recorded = await recorder.record(vote)

    assert recorded is True
    assert counter.counted == {("right", "human", "ui"): 1}


async def test_a_second_vote_on_a_matchup_is_refused_and_not_counted(
    recorder: VoteRecorder, counter: VoteCounter
) -> None:
    matchup = _matchup()
    await recorder.record(cast_vote(matchup, "left", method="human", source="api"))

    again = await recorder.record(cast_vote(matchup, "right", method="human", source="ui"))

    assert again is False
    assert counter.counted == {("left", "human", "api"): 1}


async def test_two_copies_of_a_chat_command_record_and_count_one_vote(
    store: FakeVoteStore, recorder: VoteRecorder, counter: VoteCounter
) -> None:
    matchup = _matchup()
    store.link("chat-1", matchup.id)
    vote = cast_vote(matchup, "left", method="human", source="chat")

    results = [await recorder.record_command(vote, "chat-1", "digest") for _ in range(2)]

    assert results == ["recorded", "sibling"]
    assert counter.counted == {("left", "human", "chat"): 1}


async def test_a_chat_command_after_another_vote_is_told_and_not_counted(
    store: FakeVoteStore, recorder: VoteRecorder, counter: VoteCounter
) -> None:
    matchup = _matchup()
    store.link("chat-1", matchup.id)
    await recorder.record(cast_vote(matchup, "right", method="human", source="api"))

    result = await recorder.record_command(
        cast_vote(matchup, "left", method="human", source="chat"), "chat-1", "digest"
    )

    assert result == "voted"
    assert counter.counted == {("right", "human", "api"): 1}


async def test_a_judgement_is_kept_whether_or_not_its_vote_won_the_matchup(
    store: FakeVoteStore, recorder: VoteRecorder, counter: VoteCounter
) -> None:
    first, taken = _matchup(), _matchup()
    await recorder.record(cast_vote(taken, "left", method="human", source="api"))

    won = await recorder.record_judgement(
        _judgement(first, "left"), cast_vote(first, "left", method="judge", source="suite")
    )
    lost = await recorder.record_judgement(
        _judgement(taken, "right"), cast_vote(taken, "right", method="judge", source="suite")
    )
    failed = await recorder.record_judgement(_judgement(first, None), None)

    assert (won, lost, failed) == (True, False, False)
    assert [recorded for _, recorded in store.verdicts] == [True, False, False]
    assert counter.counted == {("left", "human", "api"): 1, ("left", "judge", "suite"): 1}


async def test_a_signed_in_person_past_the_daily_cap_is_refused_and_nothing_is_stored(
    store: FakeVoteStore, counter: VoteCounter
) -> None:
    recorder = VoteRecorder(store, counter, user_cap=2)

    def vote(user: str | None) -> Any:
        return cast_vote(_matchup(), "left", method="human", source="api", user_id=user)

    assert await recorder.record(vote("u-1")) and await recorder.record(vote("u-1"))
    with pytest.raises(VoteError) as refused:
        await recorder.record(vote("u-1"))
    assert await recorder.record(vote("u-2"))  # another person's count is their own
    assert await recorder.record(vote(None))  # an anonymous voter is not capped here

    assert (refused.value.status, refused.value.code) == (429, "user_vote_cap")
    assert refused.value.retry_after_s == 3600
    assert [v.user_id for v in store.votes.values()] == ["u-1", "u-1", "u-2", None]
    assert sum(counter.counted.values()) == 4


async def test_a_reviewers_verdict_goes_through_the_one_vote_path_and_counts_once(
    recorder: VoteRecorder, store: FakeVoteStore, counter: VoteCounter
) -> None:
    verdict = ReviewVerdict(uuid.uuid4(), "reviewer-1", "left", ("accuracy",), "clear")

    first = await recorder.record_review(verdict)
    again = await recorder.record_review(verdict)

    assert (first, again) == ("recorded", "duplicate")
    assert store.reviews == [verdict]
    assert counter.counted == {("left", "reviewer", "review"): 1}
