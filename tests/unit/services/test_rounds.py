"""``ArenaService.start_round``'s rules on in-memory fakes: which models play, what is stored,
what is refused. No server, no database, no sleep: the clock is a ``FakeClock``."""

from __future__ import annotations

import uuid

import pytest

from arena_api.core.errors import (
    ConversationError,
    InvalidRequest,
    ModelNotMatched,
    NotEnoughModels,
    ProviderRateLimited,
    RoundConfigError,
    ShuttingDown,
    VoteError,
)
from arena_api.core.lifecycle import ModelStatus
from arena_api.core.models import ChatMessage, ModelWithStatus, Slot
from arena_api.core.records import ConversationRecord, StoredAnswer, TurnRecord
from arena_api.core.requests import VoteRequest
from arena_api.core.tokens import token_hash
from arena_api.services.rounds import RoundOptions, RoundPolicy
from tests.fakes.arena import ROSTER, FakeArena, drain
from tests.fakes.ports import FakeRoundStore, ScriptedProvider, model

AURORA, BOREALIS, CIRRUS = ROSTER


@pytest.mark.parametrize("seed", range(8))
async def test_a_blind_round_pits_two_different_enabled_models(seed: int) -> None:
    arena = FakeArena(seed=seed)

    stream = await arena.start()

    stored = arena.store.rounds[0]
    assert stored.slot_a != stored.slot_b
    assert {stored.slot_a, stored.slot_b} <= set(ROSTER)
    assert stream.started.models is None and stream.started.votable
    assert stream.started.slots == ("A", "B")


async def test_a_blind_round_stores_its_start_and_a_token_only_its_holder_can_present() -> None:
    arena = FakeArena()

    stream = await arena.start("What is 2+2?", sessionId="s-1")

    started, stored = stream.started, arena.store.rounds[0]
    assert str(stored.matchup_id) == started.matchup_id
    assert str(stored.conversation_id) == started.conversation_id
    assert (stored.prompt, stored.session_id, stored.mode) == ("What is 2+2?", "s-1", "blind")
    assert (stored.turn_index, stored.new_conversation) == (0, True)
    assert stored.parent_response_id is None
    assert started.matchup_token is not None
    assert stored.token_hash == token_hash(started.matchup_token)
    claims = arena.tokens.verify(started.matchup_token)
    assert (claims.matchup_id, claims.session_id) == (stored.matchup_id, "s-1")


async def test_both_answers_are_stored_before_the_round_says_they_are_done() -> None:
    arena = FakeArena(provider=ScriptedProvider(scripts={"aurora": ["Four"]}, default=["4"]))
    stream = await arena.start()

    events = await drain(stream)

    matchup_id = arena.store.rounds[0].matchup_id
    stored = {slot: arena.store.responses[(matchup_id, slot)] for slot in ("A", "B")}
    assert [kind for kind, _ in events if kind != "token"] == [
        "slot_done",
        "slot_done",
        "matchup_done",
    ]
    assert all(p.get("recorded") is not False for kind, p in events if kind == "slot_done")
    round_ = arena.store.rounds[0]
    assert stored["A"][0] == round_.slot_a.id and stored["B"][0] == round_.slot_b.id
    expected = {m.id: ("Four" if m is AURORA else "4") for m in ROSTER}
    assert {s: r.content for s, (_, r) in stored.items()} == {
        "A": expected[round_.slot_a.id],
        "B": expected[round_.slot_b.id],
    }


async def test_a_slot_whose_provider_fails_says_so_and_the_other_slot_still_answers() -> None:
    provider = ScriptedProvider(
        scripts={"aurora": []}, failures={"aurora": ProviderRateLimited("rate limited", 429)}
    )
    arena = FakeArena(models=(AURORA, BOREALIS), provider=provider)
    stream = await arena.start()

    events = await drain(stream)

    round_ = arena.store.rounds[0]
    failing: Slot = "A" if round_.slot_a == AURORA else "B"
    answers = {slot: r for (_, slot), (_, r) in arena.store.responses.items()}
    assert (
        "slot_error",
        {"slot": failing, "message": "rate limited", "code": "provider_rate_limited"},
    ) in events
    assert answers[failing].error == "rate limited" and answers[failing].content == ""
    other: Slot = "B" if failing == "A" else "A"
    assert answers[other].error is None and answers[other].content == "Hello world"
    assert events[-1] == ("matchup_done", {})


async def test_fewer_than_two_playable_models_refuses_the_round_and_stores_nothing() -> None:
    # Cirrus's provider is not configured on this server: only Aurora can answer.
    arena = FakeArena(models=(AURORA, model("cirrus", provider="elsewhere")))

    with pytest.raises(NotEnoughModels) as refused:
        await arena.start()

    assert (refused.value.status, refused.value.code) == (503, "not_enough_models")
    assert arena.store.rounds == [] and arena.observer.calls == []


async def test_a_named_round_plays_the_two_models_asked_for_in_that_order() -> None:
    arena = FakeArena()

    stream = await arena.start(mode="named", models=[str(CIRRUS.id), str(AURORA.id)])

    stored = arena.store.rounds[0]
    assert (stored.slot_a, stored.slot_b, stored.mode) == (CIRRUS, AURORA, "named")
    assert stream.started.models is not None
    assert stream.started.models["A"].display_name == "Cirrus"
    assert stream.started.mode == "named" and stream.started.votable


async def test_a_named_round_naming_a_model_not_in_the_roster_is_an_invalid_request() -> None:
    arena = FakeArena()
    missing = str(uuid.UUID(int=99))

    with pytest.raises(InvalidRequest) as refused:
        await arena.start(mode="named", models=[str(AURORA.id), missing])

    assert refused.value.details == {"models": [f"no enabled model has the id {missing!r}"]}
    assert arena.store.rounds == []


@pytest.mark.parametrize("status", ["paused", "archived"])
async def test_a_named_round_naming_a_held_back_model_says_it_is_paused_or_archived(
    status: ModelStatus,
) -> None:
    retired = model("dune", number=4)
    arena = FakeArena(store=FakeRoundStore(held_back=[ModelWithStatus(retired, status)]))

    with pytest.raises(ModelNotMatched) as refused:
        await arena.start(mode="named", models=[str(AURORA.id), str(retired.id).upper()])

    assert (refused.value.status, refused.value.code) == (409, f"model_{status}")
    assert refused.value.details == {"models": [f"'Dune' ({retired.id}) is {status}"]}
    assert f"'Dune' is {status}" in refused.value.message
    assert arena.store.rounds == []


async def test_an_unknown_model_beside_a_held_back_one_is_still_an_invalid_request() -> None:
    retired = model("dune", number=4)
    arena = FakeArena(store=FakeRoundStore(held_back=[ModelWithStatus(retired, "archived")]))
    missing = str(uuid.UUID(int=99))

    with pytest.raises(InvalidRequest) as refused:
        await arena.start(mode="named", models=[str(retired.id), missing])

    assert refused.value.details == {"models": [f"no enabled model has the id {missing!r}"]}


async def test_blind_rounds_never_draw_a_held_back_model() -> None:
    retired = model("dune", number=4)
    arena = FakeArena(store=FakeRoundStore(held_back=[ModelWithStatus(retired, "paused")]))

    for _ in range(50):
        await arena.start()

    drawn = {m for r in arena.store.rounds for m in (r.slot_a, r.slot_b)}
    assert drawn == set(ROSTER)


async def test_a_fixed_pair_plays_those_two_models_in_a_drawn_order() -> None:
    arena = FakeArena()

    await arena.start(options=RoundOptions(pair=(AURORA, CIRRUS)))

    stored = arena.store.rounds[0]
    assert {stored.slot_a, stored.slot_b} == {AURORA, CIRRUS}


async def test_a_shadow_round_streams_the_incumbent_alone_and_hands_out_no_token() -> None:
    policy = RoundPolicy(exposure="shadow", default_model="fake:aurora")
    arena = FakeArena(policy=policy)
    await arena.service.start()

    stream = await arena.start()
    await drain(stream)

    stored = arena.store.rounds[0]
    assert (stored.slot_a, stored.mode) == (AURORA, "shadow")
    assert stored.slot_b in (BOREALIS, CIRRUS)
    assert stream.started.slots == ("A",) and stream.started.matchup_token is None
    assert not stream.started.votable
    assert len(arena.store.responses) == 2  # the challenger's answer is stored, never shown


async def test_a_single_round_asks_the_default_model_and_stores_nothing() -> None:
    policy = RoundPolicy(default_model="fake:borealis")
    arena = FakeArena(policy=policy)
    await arena.service.start()

    stream = await arena.start(options=RoundOptions(plan="single"))
    events = await drain(stream)

    assert stream.started.mode == "single" and not stream.started.votable
    assert arena.provider.calls == [("borealis", (ChatMessage(role="user", content="hi"),))]
    assert ("token", {"slot": "A", "token": "Hello"}) in events
    assert arena.store.rounds == [] and arena.store.responses == {}


async def test_a_single_round_without_a_resolvable_default_model_is_a_config_error() -> None:
    arena = FakeArena()

    with pytest.raises(RoundConfigError) as refused:
        await arena.start(options=RoundOptions(plan="single"))

    assert refused.value.code == "default_model_missing"


async def test_a_round_continuing_an_unknown_conversation_is_a_404() -> None:
    arena = FakeArena()

    with pytest.raises(ConversationError) as refused:
        await arena.start(conversationId=str(uuid.uuid4()))

    assert (refused.value.status, refused.value.code) == (404, "conversation_not_found")


def _voted_conversation(winner: str) -> ConversationRecord:
    answers = (
        StoredAnswer(slot="A", response_id=uuid.UUID(int=10), content="Paris.", error=None),
        StoredAnswer(slot="B", response_id=uuid.UUID(int=11), content="Lyon.", error=None),
    )
    turn = TurnRecord(
        turn_index=0,
        matchup_id=uuid.UUID(int=5),
        prompt="Capital of France?",
        mode="blind",
        vote=winner,  # type: ignore[arg-type]
        answers=answers,
        slot_a=AURORA,
        slot_b=BOREALIS,
    )
    return ConversationRecord(id=uuid.UUID(int=77), session_id="s", turns=(turn,))


async def test_a_follow_up_turn_answers_with_the_winning_answer_as_context() -> None:
    arena = FakeArena()
    conversation = _voted_conversation("right")
    arena.store.conversations[conversation.id] = conversation

    stream = await arena.start("And of Italy?", sessionId="s", conversationId=str(conversation.id))
    await drain(stream)

    stored = arena.store.rounds[0]
    assert (stored.turn_index, stored.new_conversation) == (1, False)
    assert stored.parent_response_id == uuid.UUID(int=11)
    assert stream.started.conversation_id == str(conversation.id)
    sent = {messages for _, messages in arena.provider.calls}
    assert sent == {
        (
            ChatMessage(role="user", content="Capital of France?"),
            ChatMessage(role="assistant", content="Lyon."),
            ChatMessage(role="user", content="And of Italy?"),
        )
    }


@pytest.mark.parametrize(
    ("vote", "session", "status", "code"),
    [
        pytest.param("both_good", "s", 409, "conversation_not_ready", id="tie-ends-it"),
        pytest.param("left", "someone-else", 403, "conversation_forbidden", id="other-session"),
    ],
)
async def test_a_follow_up_turn_that_may_not_continue_is_refused(
    vote: str, session: str, status: int, code: str
) -> None:
    arena = FakeArena()
    conversation = _voted_conversation(vote)
    arena.store.conversations[conversation.id] = conversation

    with pytest.raises(ConversationError) as refused:
        await arena.start("More?", sessionId=session, conversationId=str(conversation.id))

    assert (refused.value.status, refused.value.code) == (status, code)
    assert arena.store.rounds == []


async def test_a_draining_arena_starts_no_round() -> None:
    arena = FakeArena()
    await arena.service.drain(grace_s=0)

    with pytest.raises(ShuttingDown):
        await arena.start()

    assert arena.store.rounds == []


async def test_the_round_is_reported_to_the_observer_with_its_plan_and_protocol() -> None:
    arena = FakeArena()

    stream = await arena.start(options=RoundOptions(protocol="ag-ui"))
    await drain(stream)

    assert arena.observer.of("round_started") == [("matchup", "matchup", "ag-ui")]
    assert sorted(arena.observer.of("slot_finished")) == sorted(
        [
            ("fake", arena.store.rounds[0].slot_a.display_name, None),
            ("fake", arena.store.rounds[0].slot_b.display_name, None),
        ]
    )


# -- the roster cache ---------------------------------------------------------------------------


async def test_the_playable_roster_is_read_once_within_its_ttl() -> None:
    arena = FakeArena(roster_ttl_s=2.0)
    await arena.service.playable_roster()
    arena.clock.advance(2.0)

    await arena.service.playable_roster()

    assert arena.store.roster_reads == 1


async def test_the_playable_roster_is_read_afresh_once_its_ttl_has_passed() -> None:
    arena = FakeArena(roster_ttl_s=2.0)
    await arena.service.playable_roster()
    arena.store.models = [AURORA, BOREALIS]
    arena.clock.advance(2.01)

    roster = await arena.service.playable_roster()

    assert roster == [AURORA, BOREALIS] and arena.store.roster_reads == 2


async def test_an_edited_roster_is_read_afresh_by_the_next_round() -> None:
    arena = FakeArena()
    await arena.service.playable_roster()
    arena.store.models = [AURORA]
    arena.service.roster_changed()

    with pytest.raises(NotEnoughModels):
        await arena.start()

    assert arena.store.roster_reads == 2


async def test_a_roster_ttl_of_zero_reads_the_roster_for_every_round() -> None:
    arena = FakeArena(roster_ttl_s=0)
    await arena.service.playable_roster()
    arena.clock.advance(0.001)

    await arena.service.playable_roster()

    assert arena.store.roster_reads == 2


# -- a round, then its vote ---------------------------------------------------------------------


async def test_the_token_a_round_hands_out_votes_on_it_and_reveals_its_models() -> None:
    arena = FakeArena()
    stream = await arena.start(sessionId="s")
    await drain(stream)
    round_ = arena.store.rounds[0]
    request = VoteRequest(
        matchup_id=round_.matchup_id,
        matchup_token=stream.started.matchup_token or "",
        vote="left",
    )

    reveal = await arena.service.vote(request)

    stored = arena.votes.votes[round_.matchup_id]
    assert (stored.winner_model_id, stored.session_id) == (round_.slot_a.id, "s")
    assert reveal.conversation_id == str(round_.conversation_id) and reveal.continuable
    assert reveal.models.A.id == str(round_.slot_a.id)
    assert reveal.models.B.id == str(round_.slot_b.id)
    assert arena.observer.of("vote_recorded") == [("left", "human", "api")]


async def test_a_vote_after_the_token_expired_is_refused() -> None:
    arena = FakeArena()
    stream = await arena.start()
    await drain(stream)
    arena.clock.advance(arena.tokens.ttl_seconds + 1)
    request = VoteRequest(
        matchup_id=uuid.UUID(stream.started.matchup_id),
        matchup_token=stream.started.matchup_token or "",
        vote="right",
    )

    with pytest.raises(VoteError) as refused:
        await arena.service.vote(request)

    assert (refused.value.status, refused.value.code) == (401, "token_expired")
    assert arena.votes.votes == {}
