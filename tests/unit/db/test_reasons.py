"""The reason tally shaped for the API: offered reasons first, retired ones after, models by
their explained wins."""

from __future__ import annotations

import uuid
from collections import Counter

from arena_api.db.reasons import ReasonTally, reason_counts_view

ALPHA, BETA = uuid.UUID(int=1), uuid.UUID(int=2)


def _tally() -> ReasonTally:
    return ReasonTally(
        per_model={ALPHA: Counter(style=1), BETA: Counter(accuracy=3, tone=1)},
        explained=Counter({ALPHA: 1, BETA: 3}),
        undecided=Counter(safety=2),
        votes=6,
        wins={ALPHA: 10, BETA: 4},
        names={ALPHA: "Alpha", BETA: "Beta"},
    )


def test_offered_reasons_lead_and_a_retired_one_follows() -> None:
    view = reason_counts_view(_tally(), ("accuracy", "style", "safety", "speed"))

    assert [r.id for r in view.reasons] == ["accuracy", "style", "safety", "speed", "tone"]
    assert view.reasons[-1].label == "Tone"


def test_models_come_by_their_explained_wins_with_only_the_reasons_they_won_with() -> None:
    view = reason_counts_view(_tally(), ("accuracy", "style"))

    assert [(m.display_name, m.wins, m.explained_wins, m.counts) for m in view.models] == [
        ("Beta", 4, 3, {"accuracy": 3, "tone": 1}),
        ("Alpha", 10, 1, {"style": 1}),
    ]
    assert (view.votes, view.undecided) == (6, {"safety": 2})


def test_nothing_said_why_is_an_empty_view() -> None:
    view = reason_counts_view(ReasonTally(), ("accuracy",))

    assert (view.votes, view.models, view.undecided) == (0, [], {})
    assert [r.id for r in view.reasons] == ["accuracy"]
