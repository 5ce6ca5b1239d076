"""The Python client's models (``arena_client.models``) are generated from the server's OpenAPI
document, stay in step with it, and read what the server sends: each native SSE event as the
native protocol frames it, and the nested views as the routes write them."""

from __future__ import annotations

import json
from datetime import UTC, datetime
from pathlib import Path
from typing import Any, get_args

import pytest
from pydantic import BaseModel

from arena_api.core import events, views
from arena_api.protocols.native import NativeSSE
from arena_client import _codegen, models

REGENERATE = (
    "arena_client/models.py is not what the server's OpenAPI document generates: run "
    "`python -m arena_client._codegen --from-server` (or give it a running server's "
    "/openapi.json URL) and commit the result"
)

IDENTITY_A = views.ModelIdentity(id="gpt-x", display_name="GPT X")
IDENTITY_B = views.ModelIdentity(id="claude-y", display_name="Claude Y")
REVEALED = views.RevealedModels(A=IDENTITY_A, B=IDENTITY_B)

#: Events of each kind, as ArenaCore publishes them, by test id.
SERVER_EVENTS: dict[str, events.PublicEvent] = {
    "matchup_started": events.MatchupStarted(
        matchup_id="0b6c2f1e-4a8d-4c1e-9f3a-2d5e6f7a8b9c",
        matchup_token="v1.abc.def",
        conversation_id="6f1d2c3b-0a9e-4d8c-8b7a-6e5f4d3c2b1a",
        turn_index=0,
        slots=("A", "B"),
        mode="matchup",
        votable=True,
    ),
    "matchup_started-named": events.MatchupStarted(
        matchup_id="m-named",
        slots=("A", "B"),
        mode="named",
        votable=False,
        models={
            "A": events.NamedModel(id="gpt-x", display_name="GPT X"),
            "B": events.NamedModel(id="claude-y", display_name="Claude Y"),
        },
    ),
    "token": events.Token(slot="A", token="Hello"),
    "slot_error": events.SlotError(
        slot="B", message="The model timed out.", code="provider_timeout"
    ),
    "slot_done": events.SlotDone(slot="A"),
    "slot_done-unrecorded": events.SlotDone(slot="B", recorded=False),
    "steered": events.Steered(instruction="Answer in French."),
    "run_error": events.RunError(code="no_models", message="No model is free."),
    "matchup_done": events.MatchupDone(),
    "matchup_done-unrecorded": events.MatchupDone(recorded=False),
}


def _frame(event: events.PublicEvent) -> tuple[str, str]:
    """The ``event:`` name and ``data:`` JSON of the native SSE frame the server writes."""
    lines = NativeSSE().serialize(event).decode().strip().split("\n")
    fields = dict(line.split(": ", 1) for line in lines)
    return fields["event"], fields["data"]


def _wire(view: views.View) -> dict[str, Any]:
    """The JSON a route answers with (``JSONResponse(view.wire())``), decoded."""
    decoded: dict[str, Any] = json.loads(json.dumps(view.wire()))
    return decoded


def _leaderboard() -> views.LeaderboardView:
    interval = views.ConfidenceInterval(lower=1010.5, upper=1071.25)
    entry = views.LeaderboardEntry(
        id="gpt-x",
        display_name="GPT X",
        wins=12,
        losses=7,
        ties=3,
        skips=1,
        total_votes=23,
        win_rate=0.545,
        rating=1040.9,
        rating_std_error=15.5,
        confidence_interval=interval,
        component_id=0,
        style_controlled_rating=1032.0,
        style_controlled_std_error=16.25,
        style_controlled_confidence_interval=interval,
        games=22,
        rank=1,
        style_controlled_rank=1,
        rank_range=views.AllowedRanks(best=1, worst=2),
        provisional=True,
        provisional_reason="few_votes",
    )
    unrated = views.LeaderboardEntry(
        id="claude-y",
        display_name="Claude Y",
        wins=0,
        losses=0,
        ties=0,
        skips=0,
        total_votes=0,
        win_rate=0.0,
        rating=None,
        rating_std_error=None,
        confidence_interval=None,
        component_id=None,
        style_controlled_rating=None,
        style_controlled_std_error=None,
        style_controlled_confidence_interval=None,
        status="paused",
    )
    effect = views.StyleEffect(
        feature="length",
        log_odds=0.12,
        points=20.8,
        basis="per_std_dev",
        per_unit=views.StyleUnit(points=0.05, unit="token"),
    )
    return views.LeaderboardView(
        components=views.Components(
            count=1, groups=[views.ComponentGroup(component_id=0, models=2)]
        ),
        style_control=views.StyleControl(
            effects=[effect],
            votes_observed=23,
            computed_at=datetime(2026, 7, 24, 9, 0, tzinfo=UTC),
        ),
        models=[entry, unrated],
        votes="all",
        category="language:fr",
        filtered_votes=views.FilteredVotes(
            anomalous_sessions=2, identity_leaks=1, duplicate_prompts=0
        ),
    )


def _conversation() -> views.ConversationView:
    answers = [
        views.AnswerView(slot="A", content="Bonjour !", error=None),
        views.AnswerView(slot="B", content="", error="The model timed out."),
    ]
    turn = views.TurnView(
        turn_index=0,
        matchup_id="m-1",
        prompt="Say hello in French.",
        votable=False,
        vote="left",
        answers=answers,
        models=REVEALED,
    )
    return views.ConversationView(
        conversation_id="c-1", continuable=True, next_turn_index=1, turns=[turn]
    )


@pytest.fixture(scope="module")
def document() -> dict[str, Any]:
    """The OpenAPI document this server serves, built in-process."""
    return _codegen.server_document()


def test_models_are_what_the_servers_current_document_generates(document: dict[str, Any]) -> None:
    """Regenerating from the document this server serves gives the committed file, byte for
    byte: the client's models cannot drift from the server's."""
    committed = Path(models.__file__).read_text(encoding="utf-8")

    generated = _codegen.generate(document)

    assert generated == committed, REGENERATE


def test_generation_does_not_depend_on_the_order_of_the_schemas(document: dict[str, Any]) -> None:
    schemas = document["components"]["schemas"]
    shuffled = {**document, "components": {"schemas": dict(reversed(schemas.items()))}}

    assert _codegen.generate(shuffled) == _codegen.generate(document)


def test_every_body_schema_is_exported_and_the_sse_framings_are_not(
    document: dict[str, Any],
) -> None:
    bodies = {name for name in document["components"]["schemas"] if not name.endswith("SseEvent")}

    exported = set(models.__all__)

    assert exported == bodies | {"NATIVE_EVENTS", "NativeEvent", "SERVER_VERSION"}


def test_native_events_name_every_public_event_of_the_server() -> None:
    """``NATIVE_EVENTS`` maps each ``event:`` name to the client model of that name."""
    (union, *_) = get_args(events.PublicEvent)
    server = {model.model_fields["type"].default: model.__name__ for model in get_args(union)}

    client = {name: model.__name__ for name, model in models.NATIVE_EVENTS.items()}

    assert client == server


def test_every_native_event_has_a_sample_below() -> None:
    sampled = {event.type for event in SERVER_EVENTS.values()}

    assert sampled == set(models.NATIVE_EVENTS)


@pytest.mark.parametrize("event", SERVER_EVENTS.values(), ids=SERVER_EVENTS.keys())
def test_native_event_round_trips_as_the_server_frames_it(event: events.PublicEvent) -> None:
    name, data = _frame(event)

    parsed = models.NATIVE_EVENTS[name].model_validate_json(data)

    assert parsed.model_dump(by_alias=True, exclude_unset=True, mode="json") == json.loads(data)


def test_matchup_started_reads_into_snake_case_fields() -> None:
    name, data = _frame(SERVER_EVENTS["matchup_started-named"])

    started = models.NATIVE_EVENTS[name].model_validate_json(data)

    assert isinstance(started, models.MatchupStarted)
    assert (started.matchup_id, started.mode, started.votable) == ("m-named", "named", False)
    assert started.models is not None and started.models["B"].display_name == "Claude Y"
    assert started.matchup_token is None and started.model_extra == {}


def test_a_key_this_client_does_not_know_yet_is_kept_not_refused() -> None:
    """A newer server may send more: the model keeps it, and sends it back."""
    payload = {"type": "token", "slot": "B", "token": "Hi", "tokenIndex": 7}

    token = models.Token.model_validate(payload)

    assert (token.slot, token.model_extra) == ("B", {"tokenIndex": 7})
    assert token.model_dump(by_alias=True, exclude_unset=True) == payload


@pytest.mark.parametrize(
    ("view", "model"),
    [
        pytest.param(
            views.VoteReveal(
                accepted=True,
                models=REVEALED,
                continuable=True,
                conversation_id="c-1",
                reasons=["accuracy", "style"],
            ),
            models.VoteReveal,
            id="vote-reveal",
        ),
        pytest.param(_leaderboard(), models.LeaderboardView, id="leaderboard"),
        pytest.param(_conversation(), models.ConversationView, id="conversation"),
    ],
)
def test_nested_view_round_trips_as_the_route_writes_it(
    view: views.View, model: type[BaseModel]
) -> None:
    wire = _wire(view)

    parsed = model.model_validate(wire)

    assert parsed.model_dump(by_alias=True, mode="json") == wire


def test_vote_reveal_names_both_models_by_slot() -> None:
    wire = _wire(
        views.VoteReveal(accepted=True, models=REVEALED, continuable=False, conversation_id=None)
    )

    reveal = models.VoteReveal.model_validate(wire)

    assert isinstance(reveal.models.a, models.ModelIdentity)
    assert (reveal.models.a.display_name, reveal.models.b.id) == ("GPT X", "claude-y")
    assert reveal.conversation_id is None and reveal.reasons == []


def test_leaderboard_entries_keep_their_nested_intervals_and_ranks() -> None:
    board = models.LeaderboardView.model_validate(_wire(_leaderboard()))

    settled, unrated = board.models

    assert settled.confidence_interval == models.ConfidenceInterval(lower=1010.5, upper=1071.25)
    assert settled.rank_range is not None and settled.rank_range.worst == 2
    assert (unrated.rating, unrated.status) == (None, "paused")
    assert board.style_control.computed_at == "2026-07-24T09:00:00.000Z"
