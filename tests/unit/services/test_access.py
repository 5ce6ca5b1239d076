"""The passphrase login: wrong passphrases are counted per client, then every attempt waits."""

from __future__ import annotations

import pytest

from arena_api.core.ratelimit import parse_limits
from arena_api.services.access import AccessService, LoginRateLimited, WrongPassphrase
from tests.support import run_blocking as run


class Clock:
    def __init__(self) -> None:
        self.now = 500.0

    def __call__(self) -> float:
        return self.now


def _access(clock: Clock, limits: str = "3/minute") -> AccessService:
    return AccessService(
        passphrase="open sesame",
        secret=b"server-secret-0123456789",
        ttl_s=3600,
        login_limits=parse_limits(limits),
        clock=clock,
        monotonic=clock,
    )


def test_the_right_passphrase_opens_a_session_with_its_csrf_token() -> None:
    access = _access(Clock())

    signed = run(access.sign_in("open sesame", "10.0.0.1"))

    assert access.session(signed.cookie) == signed.session
    assert access.csrf_matches(signed.session, signed.csrf_token, signed.csrf_token)


def test_right_passphrases_are_never_counted() -> None:
    access = _access(Clock(), "1/minute")

    for _ in range(5):
        run(access.sign_in("open sesame", "10.0.0.1"))


def test_past_the_limit_even_the_right_passphrase_waits_until_the_window_slides() -> None:
    clock = Clock()
    access = _access(clock, "3/minute")
    for second in range(3):
        clock.now = 500.0 + second * 10
        with pytest.raises(WrongPassphrase):
            run(access.sign_in("guess", "10.0.0.1"))

    clock.now = 530.0
    with pytest.raises(LoginRateLimited) as refused:
        run(access.sign_in("open sesame", "10.0.0.1"))
    other_client = run(access.sign_in("open sesame", "10.0.0.2"))
    clock.now = 559.9
    with pytest.raises(LoginRateLimited):
        run(access.sign_in("open sesame", "10.0.0.1"))
    clock.now = 560.0  # the first wrong guess (at 500) leaves the minute
    again = run(access.sign_in("open sesame", "10.0.0.1"))

    assert refused.value.retry_after_s == 30  # honest: the first guess leaves at 560
    assert refused.value.status == 429 and refused.value.code == "rate_limited"
    assert other_client.cookie and again.cookie


def test_with_no_passphrase_nothing_signs_in() -> None:
    access = AccessService(
        passphrase=None,
        secret=b"server-secret-0123456789",
        ttl_s=3600,
        login_limits=(),
    )

    with pytest.raises(WrongPassphrase):
        run(access.sign_in("", "10.0.0.1"))
    assert not access.enabled
