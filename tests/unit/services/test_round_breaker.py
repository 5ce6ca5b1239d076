"""The rounds service and the circuit breaker: a model that keeps failing stops being drawn,
and too few models left is a 503 ``models_paused`` with when to try again."""

from __future__ import annotations

import pytest

from arena_api.core.breaker import BreakerChange, CircuitBreaker
from arena_api.core.errors import ModelsPaused, ProviderRateLimited, ProviderRefused
from tests.fakes.arena import ROSTER, FakeArena, drain
from tests.fakes.ports import ScriptedProvider

AURORA, BOREALIS, CIRRUS = ROSTER


def _arena(failure: Exception, models: tuple = ROSTER) -> tuple[FakeArena, list[BreakerChange]]:
    provider = ScriptedProvider(scripts={"aurora": []}, failures={"aurora": failure})
    arena = FakeArena(models=models, provider=provider)
    changes: list[BreakerChange] = []
    arena.service.breaker = CircuitBreaker(
        failures=2, window=3, cooldown_s=30, clock=arena.clock.monotonic, listeners=[changes.append]
    )
    return arena, changes


async def _rounds_with_aurora(arena: FakeArena, count: int) -> None:
    """Play blind rounds until ``count`` of them drew Aurora."""
    drew = 0
    for _ in range(50):
        await drain(await arena.start())
        round_ = arena.store.rounds[-1]
        drew += AURORA in (round_.slot_a, round_.slot_b)
        if drew == count:
            return
    pytest.fail("Aurora was never drawn")


async def test_a_model_that_keeps_failing_is_drawn_no_more() -> None:
    arena, changes = _arena(ProviderRateLimited("rate limited", 429))

    await _rounds_with_aurora(arena, 2)
    before = len(arena.store.rounds)
    for _ in range(20):
        await drain(await arena.start())

    assert [(c.model, c.state) for c in changes] == [(AURORA, "paused")]
    drawn = {m for r in arena.store.rounds[before:] for m in (r.slot_a, r.slot_b)}
    assert drawn == {BOREALIS, CIRRUS}


async def test_a_model_declining_a_prompt_is_no_failure() -> None:
    arena, changes = _arena(ProviderRefused("blocked by the provider's safety filter"))

    await _rounds_with_aurora(arena, 3)

    assert changes == []


async def test_too_few_models_left_is_a_503_that_says_when_to_try_again() -> None:
    arena, changes = _arena(ProviderRateLimited("rate limited", 429), models=(AURORA, BOREALIS))
    await _rounds_with_aurora(arena, 2)

    with pytest.raises(ModelsPaused) as paused:
        await arena.start()
    arena.clock.advance(31)  # the cooldown is over: the next round is Aurora's trial
    trial = await arena.start()

    assert (paused.value.status, paused.value.code) == (503, "models_paused")
    assert paused.value.retry_after_s == 30
    assert "1 of this arena's models are paused" in paused.value.message
    round_ = arena.store.rounds[-1]
    assert AURORA in (round_.slot_a, round_.slot_b)
    await drain(trial)
    assert [c.state for c in changes] == ["paused"]  # failed its trial: paused again, no alert
