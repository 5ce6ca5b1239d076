"""Sliding windows per client and route group, with an injected clock: edges and Retry-After."""

from __future__ import annotations

import pytest

from arena_api.core.ratelimit import Limit, RateLimiter, Refusal, parse_limits
from tests.support import run_blocking as run


class Clock:
    def __init__(self) -> None:
        self.now = 1000.0

    def __call__(self) -> float:
        return self.now

    def at(self, offset: float) -> Clock:
        self.now = 1000.0 + offset
        return self


def test_a_limit_admits_that_many_per_window_and_no_more() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("3/second"), clock)

    admitted = [
        run(limiter.check("chat", "ip")) is None for _ in (clock.at(t) for t in (0, 0.1, 0.2))
    ]
    refused = run(limiter.check("chat", "ip"))

    assert admitted == [True, True, True]
    assert refused == Refusal(Limit(3, 1.0), 1)


def test_the_window_slides_and_its_edge_belongs_to_the_next_one() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("2/second"), clock)
    run(limiter.check("chat", "ip"))
    clock.at(0.5)
    run(limiter.check("chat", "ip"))

    assert run(limiter.check("chat", "ip")) is not None  # at 0.5: two in the last second
    assert clock.at(0.999) and run(limiter.check("chat", "ip")) is not None
    assert clock.at(1.0) and run(limiter.check("chat", "ip")) is None  # the one at 0 has left
    assert clock.at(1.2) and run(limiter.check("chat", "ip")) is not None  # 0.5 and 1.0 remain


def test_retry_after_is_honest_to_the_second() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("2/minute"), clock)
    run(limiter.check("vote", "ip"))
    clock.at(20)
    run(limiter.check("vote", "ip"))

    refusal = clock.at(30.5) and run(limiter.check("vote", "ip"))

    assert refusal and refusal.retry_after_s == 30  # the first leaves at 60
    assert clock.at(30.5 + 29) and run(limiter.check("vote", "ip")) is not None
    assert clock.at(30.5 + 30) and run(limiter.check("vote", "ip")) is None


def test_several_windows_each_hold_and_the_longest_wait_is_told() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("2/second,3/minute"), clock)
    results = {t: run(limiter.check("chat", "ip")) for t in (0, 0.5, 0.9, 1.1) if clock.at(t)}

    assert results[0] is None and results[0.5] is None
    assert results[0.9] == Refusal(Limit(2, 1.0), 1)
    assert results[1.1] is None
    late = clock.at(2.2) and run(limiter.check("chat", "ip"))
    assert late == Refusal(Limit(3, 60.0), 58)


def test_a_refused_request_is_not_counted() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("1/second"), clock)
    run(limiter.check("chat", "ip"))
    for t in (0.2, 0.4, 0.6, 0.8):
        clock.at(t)
        assert run(limiter.check("chat", "ip")) is not None

    assert clock.at(1.0) and run(limiter.check("chat", "ip")) is None


def test_clients_and_groups_have_budgets_of_their_own() -> None:
    limiter = RateLimiter(parse_limits("1/hour"), Clock())

    assert run(limiter.check("chat", "a")) is None
    assert run(limiter.check("chat", "b")) is None
    assert run(limiter.check("vote", "a")) is None
    assert run(limiter.check("chat", "a")) is not None


def test_idle_clients_are_forgotten() -> None:
    clock = Clock()
    limiter = RateLimiter(parse_limits("5/minute"), clock)
    for client in range(100):
        run(limiter.check("chat", str(client)))

    clock.at(200)
    run(limiter.check("chat", "new"))

    assert len(limiter._seen) == 1


def test_no_limit_admits_everything_and_keeps_nothing() -> None:
    limiter = RateLimiter(parse_limits(""), Clock())

    assert all(run(limiter.check("chat", "ip")) is None for _ in range(1000))
    assert not limiter.enabled and limiter._seen == {}


@pytest.mark.parametrize("raw", ["5/ms", "0/second", "x/minute", "5/fortnight", "5"])
def test_a_malformed_limit_is_refused(raw: str) -> None:
    with pytest.raises(ValueError):
        parse_limits(raw)


def test_limits_read_as_people_write_them() -> None:
    assert parse_limits("5/second, 100/hours") == (Limit(5, 1.0), Limit(100, 3600.0))
    assert str(Limit(30, 60.0)) == "30/minute"
