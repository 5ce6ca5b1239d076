"""``arena_client.Arena`` against a real ``arena serve``: every method, typed events and
answers, the server's refusals as typed errors, a dropped stream recovered, and a 429 waited
out only when asked to."""

from __future__ import annotations

import threading
import time
import uuid
from collections.abc import Callable
from typing import Literal

import pytest

from arena_client import (
    Arena,
    BadRequest,
    Conflict,
    ConnectionLost,
    MatchupDone,
    MatchupStarted,
    NotFound,
    RateLimited,
    Retry,
    Round,
    SlotDone,
    Steered,
    Token,
    Unauthorized,
)
from e2e.client.conftest import TOKEN, DroppingRelay
from tests.support import ProductProcess, free_port

pytestmark = [pytest.mark.slow]


def _played(arena: Arena, prompt: str = "Explain JWTs in simple terms") -> Round:
    return arena.round(prompt).wait()


def test_a_round_streams_typed_events_and_its_vote_reveals_the_models(
    client_product: ProductProcess,
) -> None:
    with Arena(client_product.url) as arena:
        round_ = arena.round("Explain JWTs in simple terms")
        # Known before the first event: the header carries the round's metadata.
        assert uuid.UUID(round_.matchup_id) and round_.started.matchup_token
        events = list(round_)
        assert isinstance(events[0], MatchupStarted) and events[0].votable
        assert isinstance(events[-1], MatchupDone)
        assert {e.slot for e in events if isinstance(e, SlotDone)} == {"A", "B"}
        for slot in ("A", "B"):
            streamed = "".join(e.token for e in events if isinstance(e, Token) and e.slot == slot)
            assert streamed and streamed == round_.answers[slot]
        assert round_.left == round_.answers["A"] and round_.finished

        reveal = round_.vote("left", reasons=["accuracy"])
        assert reveal.accepted and reveal.reasons == ["accuracy"]
        assert {reveal.models.a.display_name, reveal.models.b.display_name} <= {
            "Mock Aurora",
            "Mock Borealis",
            "Mock Cirrus",
            "Mock Dune Mini",
        }
        assert arena.matchup(round_.matchup_id).vote == "left"

        follow = round_.follow_up("And how are they signed?").wait()
        assert follow.conversation_id == round_.conversation_id
        assert follow.started.turn_index == 1
        turns = arena.conversation(follow.conversation_id or "", session=round_.session).turns
        assert [t.prompt for t in turns] == [
            "Explain JWTs in simple terms",
            "And how are they signed?",
        ]
        assert turns[0].answers[0].content in (round_.left, round_.right)


def test_a_named_round_names_both_models_from_the_start(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        ids = [entry.id for entry in arena.leaderboard(include_named=True).models[:2]]
        round_ = arena.round("Compare sorting algorithms", mode="named", models=ids).wait()
        assert round_.started.mode == "named" and round_.started.models is not None
        assert {model.id for model in round_.started.models.values()} == set(ids)
        assert round_.vote("both_good").accepted


def test_refusals_are_typed_errors_with_the_servers_code(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        with pytest.raises(BadRequest) as empty:
            arena.round("   ")
        assert empty.value.status == 400 and empty.value.code == "invalid_request"
        assert "prompt" in empty.value.details

        round_ = _played(arena)
        round_.vote("right")
        with pytest.raises(Conflict) as twice:
            round_.vote("left")
        assert twice.value.code == "already_voted"

        with pytest.raises(NotFound) as missing:
            arena.matchup(uuid.uuid4())
        assert missing.value.status == 404 and missing.value.code

        # A round played elsewhere, voted by its id and token alone.
        other = _played(arena)
        token = other.started.matchup_token or ""
        assert arena.vote(other.matchup_id, token, "both_bad", reasons=None).accepted
        # A stop of a round that is no longer running says no.
        assert arena.control({"type": "stop", "matchupId": other.matchup_id}) is False

        with pytest.raises(BadRequest) as unjoined:
            arena._round({"prompt": "hi", "slot": "A"})  # a slot without its join key
        assert "slot" in unjoined.value.details


def test_stop_and_steer_go_over_the_control_socket(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        round_ = arena.round("Write a long story about a lighthouse")
        for event in round_:
            if isinstance(event, Token):
                break
        assert round_.stop() is True
        round_.wait()
        assert round_.finished and len(round_.left.split()) < 50

        steered = arena.round("Describe the sea")
        for event in steered:
            if isinstance(event, Token):
                break
        assert steered.steer("Answer in French") is True
        rest = list(steered)
        assert any(isinstance(e, Steered) and e.instruction == "Answer in French" for e in rest)
        assert steered.vote("both_bad").accepted


def test_two_requests_of_one_key_share_a_matchup_one_slot_each(
    client_product: ProductProcess,
) -> None:
    with Arena(client_product.url) as arena:
        rounds: dict[str, Round] = {}

        def column(slot: Literal["A", "B"]) -> None:
            rounds[slot] = arena.join(
                "Name three rivers",
                key="columns-1",
                session="py-join",
                slot=slot,
            ).wait()

        sides: tuple[Literal["A", "B"], ...] = ("A", "B")
        threads = [threading.Thread(target=column, args=(slot,)) for slot in sides]
        for thread in threads:
            thread.start()
        for thread in threads:
            thread.join(timeout=60)
        assert rounds["A"].matchup_id == rounds["B"].matchup_id
        assert rounds["A"].left and not rounds["A"].right
        assert rounds["B"].right and not rounds["B"].left
        assert rounds["B"].vote("right").accepted

        with pytest.raises(Conflict) as alone:
            arena.join("Name three lakes", key="columns-2", session="py-join", slot="A")
        assert alone.value.code == "join_unpaired"


def test_the_judge_votes_and_its_verdict_is_typed(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        round_ = _played(arena, "Is 17 a prime number?")
        verdict = round_.judge()
        assert verdict.accepted and verdict.judge.name == "Mock Judge"
        assert verdict.vote in ("left", "right", "both_good", "both_bad")
        with pytest.raises(Conflict):
            round_.vote("left")


def test_the_board_and_every_analytics_read_are_typed(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        _played(arena, "Write a Python function that reverses a list").vote("left")
        board = arena.leaderboard(votes="all")
        assert board.votes == "all" and sum(e.total_votes for e in board.models) > 0
        assert arena.leaderboard(category="coding").category == "coding"
        reads = arena.analytics
        assert reads.summary().total_votes > 0
        assert reads.categories().categories is not None
        assert reads.head_to_head(votes="all").pairs is not None
        assert reads.model_metrics().models
        assert reads.activity(bucket="hour").bucket == "hour"
        assert reads.cost(bucket="week") is not None
        assert reads.style_control() is not None
        assert reads.rating_history(points=10) is not None
        assert reads.reasons() is not None
        assert reads.judge_agreement() is not None
        assert arena.vote_reasons() is not None
        assert arena.health().status == "ok"
        assert {m.id for m in arena.models().data} >= {"arena-duel"}


def test_a_suite_runs_with_progress(client_product: ProductProcess) -> None:
    with Arena(client_product.url) as arena:
        names = [suite.name for suite in arena.suites.list().suites]
        assert "example" in names
        seen: list[tuple[str, int]] = []
        run = arena.suites.run(
            "example",
            progress=lambda r: seen.append((r.status, r.completed)),
            poll=0.2,
            timeout=300,
        )
        assert run.status == "done" and run.completed == run.total > 0
        assert seen[0] == ("running", 0) and seen[-1] == ("done", run.total)
        assert [c for _, c in seen] == sorted(c for _, c in seen)
        assert run.run_id in {r.run_id for r in arena.suites.runs("example").runs}
        assert arena.suites.diff(run.run_id, run.run_id) is not None
        assert arena.suites.get(run.run_id).status == "done"
        with pytest.raises(Conflict) as finished:
            arena.suites.resume(run.run_id)
        assert finished.value.code == "suite_run_not_resumable"


def test_the_export_streams_one_row_per_vote(guarded_product: ProductProcess) -> None:
    with Arena(guarded_product.url, TOKEN, retry=True) as arena:
        _played(arena, "What is a monad?").vote("right")
        rows = list(arena.export(include_text=True))
        mine = [row for row in rows if row.get("prompt") == "What is a monad?"]
        assert len(mine) == 1 and mine[0]["outcome"] == "right"
        assert all("prompt" not in row for row in arena.export())


def test_a_dropped_stream_is_a_connection_error_and_the_round_is_recovered(
    client_product: ProductProcess, relay_to: Callable[[int], DroppingRelay]
) -> None:
    relay = relay_to(1_500)  # the headers and a few events, then the network is gone
    with Arena(relay.url) as arena:
        round_ = arena.round("Explain the CAP theorem")
        with pytest.raises(ConnectionLost) as dropped:
            round_.wait()
        assert dropped.value.code == "stream_interrupted" and relay.cuts == 1
        assert not round_.finished
    with Arena(client_product.url) as arena:
        round_._arena = arena  # the same round, read again over a good connection
        round_.recover(timeout=60)
        assert round_.finished and round_.left and round_.right
        assert round_.vote("left").accepted


def test_a_token_is_sent_and_a_429_is_waited_out_only_when_asked(
    guarded_product: ProductProcess,
) -> None:
    with Arena(guarded_product.url) as anonymous, pytest.raises(Unauthorized) as refused:
        anonymous.leaderboard()
    assert refused.value.code

    with Arena(guarded_product.url, TOKEN) as arena:
        with pytest.raises(RateLimited) as limited:
            for _ in range(5):
                arena.round("One more, quickly").wait()
        assert limited.value.code == "rate_limited" and limited.value.retry_after

    time.sleep(1.1)
    with Arena(guarded_product.url, TOKEN, retry=Retry(attempts=10, max_wait=5)) as arena:
        started = time.monotonic()
        rounds = [arena.round(f"Patient question {i}").wait() for i in range(5)]
        assert all(r.finished for r in rounds)
        assert time.monotonic() - started >= 1.0  # five rounds at two a second: waited


def test_a_control_socket_without_a_token_is_refused_with_the_servers_code(
    guarded_product: ProductProcess,
) -> None:
    """granian sends the edge's refusal as an HTTP answer (the WebSocket denial response)."""
    with Arena(guarded_product.url) as anonymous, pytest.raises(Unauthorized) as refused:
        anonymous.control({"type": "stop", "matchupId": str(uuid.uuid4())})
    assert refused.value.status == 401 and refused.value.code == "unauthorized"


def test_a_refused_connection_is_retried_only_when_asked(client_product: ProductProcess) -> None:
    port = free_port()
    with Arena(f"http://127.0.0.1:{port}") as arena, pytest.raises(ConnectionLost) as refused:
        arena.health()
    assert refused.value.code == "connect_failed"

    # The arena comes back (a restart) while the client waits between its tries.
    relays: list[DroppingRelay] = []
    back = threading.Timer(
        0.5, lambda: relays.append(DroppingRelay(client_product.port, port=port))
    )
    back.start()
    try:
        with Arena(f"http://127.0.0.1:{port}", retry=Retry(attempts=8, backoff=0.2)) as arena:
            assert arena.round("Asked while the arena restarts").wait().finished
    finally:
        back.join()
        for relay in relays:
            relay.close()
