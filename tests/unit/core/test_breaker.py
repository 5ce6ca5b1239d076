"""The circuit breaker: paused after enough failures in the window, tried again after the
cooldown by one round at a time, resumed by an answer."""

from __future__ import annotations

import uuid

from arena_api.core.breaker import CircuitBreaker
from arena_api.core.models import ModelEntry


class Clock:
    def __init__(self) -> None:
        self.now = 1_000.0

    def __call__(self) -> float:
        return self.now


def _model(name: str) -> ModelEntry:
    return ModelEntry(id=uuid.uuid4(), display_name=name, provider="mock", provider_model_id=name)


def _breaker(clock: Clock) -> CircuitBreaker:
    return CircuitBreaker(failures=3, window=5, cooldown_s=60, clock=clock)


def test_a_model_is_paused_after_enough_failures_in_its_window() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    flaky, steady = _model("flaky"), _model("steady")

    changes = [breaker.record(flaky, failed) for failed in (True, False, True, False, True)]

    assert [c.state if c else None for c in changes] == [None, None, None, None, "paused"]
    assert changes[-1] is not None and (changes[-1].failures, changes[-1].window) == (3, 5)
    assert breaker.playable([flaky, steady]) == [steady]
    assert [p.model for p in breaker.paused()] == [flaky]
    assert breaker.paused()[0].until == clock.now + 60


def test_old_failures_leave_the_window() -> None:
    breaker = _breaker(Clock())
    model = _model("m")

    outcomes = [True, True, False, False, False, False, False, True]  # 2 old ones slid out

    assert all(breaker.record(model, failed) is None for failed in outcomes)
    assert breaker.playable([model]) == [model]


def test_after_the_cooldown_one_trial_round_resumes_it() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    model = _model("m")
    for _ in range(3):
        breaker.record(model, True)

    clock.now += 59
    waiting = breaker.playable([model])
    clock.now += 2
    half_open = breaker.playable([model])
    breaker.drawn(model)
    during_trial = breaker.playable([model])
    resumed = breaker.record(model, False)

    assert waiting == [] and half_open == [model] and during_trial == []
    assert resumed is not None and resumed.state == "resumed"
    assert breaker.playable([model]) == [model] and breaker.paused() == []


def test_a_failed_trial_pauses_it_for_another_cooldown_and_a_lost_one_is_given_up() -> None:
    clock = Clock()
    breaker = _breaker(clock)
    model = _model("m")
    for _ in range(3):
        breaker.record(model, True)
    clock.now += 61
    breaker.drawn(model)

    assert breaker.record(model, True) is None  # still paused, no second alert
    assert breaker.playable([model]) == []
    clock.now += 61
    breaker.drawn(model)  # this trial never reports (its server died) ...
    clock.now += 61
    assert breaker.playable([model]) == [model]  # ... and another round may try
