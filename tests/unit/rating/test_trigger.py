"""When the rating loop refits: soon after new votes, at most once per interval, never idle."""

from __future__ import annotations

from arena_rating.trigger import Fingerprint, Refit, RefitTrigger


def _votes(n: int) -> Fingerprint:
    return (f"vote-{n:06d}", 2 * n)


def _run(trigger: RefitTrigger, fingerprint: Fingerprint, now: float) -> Refit | None:
    refit = trigger.due(fingerprint, now)
    if refit is not None:
        trigger.ran(refit, fingerprint, now)
    return refit


def test_the_first_look_always_refits_periodically() -> None:
    assert RefitTrigger(10, 300).due((None, 0), 0.0) == Refit(periodic=True)


def test_no_refit_while_nothing_changed() -> None:
    trigger = RefitTrigger(10, 300)
    _run(trigger, _votes(5), 0.0)

    refits = [_run(trigger, _votes(5), float(t)) for t in range(1, 3600)]

    assert refits == [None] * len(refits)


def test_a_new_vote_refits_once_the_minimum_interval_has_passed() -> None:
    trigger = RefitTrigger(10, 300)
    _run(trigger, _votes(1), 0.0)

    assert trigger.due(_votes(2), 4.0) is None
    assert trigger.due(_votes(2), 10.0) == Refit(periodic=False)


def test_a_burst_of_a_thousand_votes_refits_at_most_once_per_interval() -> None:
    trigger = RefitTrigger(10, 300)
    _run(trigger, _votes(0), 0.0)
    refits_at = []
    # 1,000 votes over 30 s, the loop looking once a second, then 30 quiet seconds.
    for second in range(1, 61):
        seen = _votes(min(1000, second * 34))
        if _run(trigger, seen, float(second)) is not None:
            refits_at.append(second)

    assert refits_at == [10, 20, 30]  # the last one saw all 1,000 votes
    assert all(b - a >= 10 for a, b in zip(refits_at, refits_at[1:], strict=False))


def test_a_deleted_vote_counts_as_a_change() -> None:
    trigger = RefitTrigger(10, 300)
    _run(trigger, ("vote-9", 20), 0.0)

    assert trigger.due(("vote-9", 18), 10.0) is not None


def test_the_periodic_refit_keeps_its_own_longer_cadence() -> None:
    trigger = RefitTrigger(10, 300)
    styled = [
        second
        for second in range(0, 900, 10)
        if (refit := _run(trigger, _votes(second), float(second))) is not None and refit.periodic
    ]

    assert styled == [0, 300, 600]


def test_votes_the_periodic_refit_has_not_seen_get_one_once_its_interval_passes() -> None:
    trigger = RefitTrigger(10, 300)
    _run(trigger, _votes(1), 0.0)
    assert _run(trigger, _votes(2), 20.0) == Refit(periodic=False)  # then the arena goes quiet

    assert trigger.due(_votes(2), 299.0) is None
    assert trigger.due(_votes(2), 300.0) == Refit(periodic=True)
    _run(trigger, _votes(2), 300.0)
    assert trigger.due(_votes(2), 900.0) is None
