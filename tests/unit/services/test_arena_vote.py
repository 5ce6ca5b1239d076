"""``ArenaService.vote``'s rules on in-memory fakes: no server, no database, no sleep (the token
service's clock is injected)."""

from __future__ import annotations

import dataclasses
import uuid
from typing import Any

import pytest

from arena_api.core.arena import ArenaCore
from arena_api.core.errors import VoteError
from arena_api.core.matchmaking import RandomMatchmaker
from arena_api.core.models import ModelEntry
from arena_api.core.records import MatchupRecord
from arena_api.core.requests import VoteRequest
from arena_api.core.tokens import MatchupTokenService, token_hash
from arena_api.services.rounds import ArenaService, RoundPolicy
from arena_api.services.votes import VoteRecorder
from tests.fakes.votes import FakeVoteStore, VoteCounter

SECRET = b"a test secret of enough bytes"
A = ModelEntry(id=uuid.UUID(int=7), display_name="Alpha", provider="mock", provider_model_id="a")
B = ModelEntry(id=uuid.UUID(int=3), display_name="Beta", provider="mock", provider_model_id="b")


class Clock:
    def __init__(self) -> None:
        self.now = 1_800_000_000.0

    def __call__(self) -> float:
        return self.now


class FakeMatchups:
    """The one read ``vote`` makes of the repository: a matchup by id."""

    def __init__(self) -> None:
        self.matchups: dict[uuid.UUID, MatchupRecord] = {}

    async def get_matchup(self, matchup_id: uuid.UUID) -> MatchupRecord | None:
        return self.matchups.get(matchup_id)


class Arena:
    def __init__(self) -> None:
        self.clock = Clock()
        self.tokens = MatchupTokenService(SECRET, clock=self.clock)
        self.repo = FakeMatchups()
        self.store = FakeVoteStore()
        self.counter = VoteCounter()
        self.service = ArenaService(
            repository=self.repo,  # type: ignore[arg-type]
            votes=VoteRecorder(self.store, self.counter),
            providers=None,  # type: ignore[arg-type]
            matchmaker=RandomMatchmaker(),
            core=ArenaCore(slot_timeout_s=1),
            tokens=self.tokens,
            policy=RoundPolicy(),
        )

    def matchup(self, mode: str = "blind", **changes: Any) -> tuple[MatchupRecord, str]:
        """A stored matchup and the token its round handed out."""
        matchup_id = uuid.uuid4()
        token = self.tokens.mint(matchup_id, A.id, B.id, "session-1")
        record = MatchupRecord(
            id=matchup_id,
            conversation_id=uuid.uuid4(),
            turn_index=0,
            mode=mode,  # type: ignore[arg-type]
            token_hash=token_hash(token),
            slot_a=A,
            slot_b=B,
            vote=None,
        )
        record = dataclasses.replace(record, **changes)
        self.repo.matchups[matchup_id] = record
        return record, token


def _request(matchup: MatchupRecord, token: str, vote: str = "left") -> VoteRequest:
    return VoteRequest(matchup_id=matchup.id, matchup_token=token, vote=vote)  # type: ignore[arg-type]


@pytest.fixture
def arena() -> Arena:
    return Arena()


async def test_a_vote_reveals_both_models_and_records_its_winner_from_the_slots(
    arena: Arena,
) -> None:
    matchup, token = arena.matchup()

    reveal = await arena.service.vote(_request(matchup, token, "right"), source="ui")

    stored = arena.store.votes[matchup.id]
    assert reveal.accepted and reveal.continuable
    assert (stored.winner_model_id, stored.selected_slot) == (B.id, "B")
    assert (stored.method, stored.source, stored.session_id) == ("human", "ui", "session-1")
    assert arena.counter.counted == {("right", "human", "ui"): 1}


async def test_a_tie_is_recorded_without_a_winner_and_ends_the_conversation(
    arena: Arena,
) -> None:
    matchup, token = arena.matchup()

    reveal = await arena.service.vote(_request(matchup, token, "both_good"))

    assert arena.store.votes[matchup.id].winner_model_id is None
    assert reveal.continuable is False


@pytest.mark.parametrize(
    ("case", "status", "code"),
    [
        pytest.param("garbage", 401, "invalid_token", id="not-a-token"),
        pytest.param("other-matchup", 401, "invalid_token", id="token-of-another-matchup"),
        pytest.param("unknown", 404, "matchup_not_found", id="unknown-matchup"),
        pytest.param("shadow", 403, "not_votable", id="shadow-matchup"),
        pytest.param("swapped-slots", 401, "invalid_token", id="slots-not-the-tokens"),
        pytest.param("expired", 401, "token_expired", id="expired-token"),
    ],
)
async def test_a_vote_that_may_not_be_cast_is_refused_and_records_nothing(
    arena: Arena, case: str, status: int, code: str
) -> None:
    matchup, token = arena.matchup("shadow" if case == "shadow" else "blind")
    if case == "garbage":
        token = "not.a-token"
    elif case == "other-matchup":
        token = arena.matchup()[1]
    elif case == "unknown":
        del arena.repo.matchups[matchup.id]
    elif case == "swapped-slots":
        arena.repo.matchups[matchup.id] = dataclasses.replace(matchup, slot_a=B, slot_b=A)
    elif case == "expired":
        arena.clock.now += arena.tokens.ttl_seconds

    with pytest.raises(VoteError) as refused:
        await arena.service.vote(_request(matchup, token))

    assert (refused.value.status, refused.value.code) == (status, code)
    assert arena.store.votes == {} and arena.counter.counted == {}


async def test_a_second_vote_on_a_matchup_is_a_409_and_the_first_stands(arena: Arena) -> None:
    matchup, token = arena.matchup()
    await arena.service.vote(_request(matchup, token, "left"))

    with pytest.raises(VoteError) as refused:
        await arena.service.vote(_request(matchup, token, "right"))

    assert (refused.value.status, refused.value.code) == (409, "already_voted")
    assert arena.store.votes[matchup.id].vote == "left"
    assert arena.counter.counted == {("left", "human", "api"): 1}
