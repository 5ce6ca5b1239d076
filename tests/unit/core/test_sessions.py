"""Signed session cookies and the CSRF tokens bound to them."""

from __future__ import annotations

import pytest

from arena_api.core.sessions import (
    SessionSigner,
    derive_session_key,
    passphrase_matches,
)

KEY = derive_session_key(b"server-secret-0123456789", "open sesame")


class Clock:
    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now


def test_an_issued_cookie_reads_back_as_its_session() -> None:
    signer = SessionSigner(KEY, ttl_s=3600, clock=Clock())

    session, cookie = signer.issue()

    assert signer.read(cookie) == session
    assert session.expires_at == 1_000_000 + 3600


def test_a_cookie_is_refused_from_the_second_it_expires() -> None:
    clock = Clock()
    signer = SessionSigner(KEY, ttl_s=60, clock=clock)
    _, cookie = signer.issue()

    clock.now += 59.9
    alive = signer.read(cookie)
    clock.now += 0.1
    expired = signer.read(cookie)

    assert alive is not None and expired is None


@pytest.mark.parametrize(
    "tamper",
    [
        pytest.param(lambda c: c[:-2] + ("AA" if not c.endswith("AA") else "BB"), id="signature"),
        pytest.param(lambda c: c.replace(c.split(".")[2], "9999999999"), id="later-expiry"),
        pytest.param(lambda c: c.replace(c.split(".")[1], "someone-else"), id="other-id"),
        pytest.param(lambda c: "v2" + c[2:], id="version"),
        pytest.param(lambda c: c + ".x", id="extra-part"),
        pytest.param(lambda c: "", id="empty"),
        pytest.param(lambda c: "not a cookie at all", id="garbage"),
        pytest.param(lambda c: c * 10, id="oversized"),
    ],
)
def test_a_forged_or_malformed_cookie_is_no_session(tamper: object) -> None:
    signer = SessionSigner(KEY, ttl_s=3600, clock=Clock())
    _, cookie = signer.issue()

    assert signer.read(tamper(cookie)) is None  # type: ignore[operator]


def test_changing_the_passphrase_signs_every_browser_out() -> None:
    before = SessionSigner(KEY, ttl_s=3600, clock=Clock())
    after = SessionSigner(
        derive_session_key(b"server-secret-0123456789", "new phrase"), ttl_s=3600, clock=Clock()
    )
    _, cookie = before.issue()

    assert after.read(cookie) is None


def test_the_csrf_token_must_come_twice_and_be_the_sessions_own() -> None:
    signer = SessionSigner(KEY, ttl_s=3600, clock=Clock())
    session, _ = signer.issue()
    other, _ = signer.issue()
    token = signer.csrf_token(session)

    assert signer.csrf_matches(session, token, token)
    assert not signer.csrf_matches(session, None, token)
    assert not signer.csrf_matches(session, token, None)
    assert not signer.csrf_matches(session, token, "planted")
    assert not signer.csrf_matches(session, "planted", "planted")
    assert not signer.csrf_matches(other, token, token)


def test_passphrases_compare_whole_and_exact() -> None:
    assert passphrase_matches("open sesame", "open sesame")
    assert not passphrase_matches("open sesam", "open sesame")
    assert not passphrase_matches("open sesame!", "open sesame")
    assert not passphrase_matches("", "open sesame")


def test_a_users_cookie_carries_their_id_and_role_and_expires_like_any() -> None:
    clock = Clock()
    signer = SessionSigner(KEY, ttl_s=3600, clock=clock)
    user_id = "0b1c9a62-5f39-4c1e-9d2a-2f6c1f1d7e11"

    session, cookie = signer.issue(user_id, "reviewer")

    assert cookie.startswith("v2.")
    assert signer.read(cookie) == session
    assert (session.user_id, session.role) == (user_id, "reviewer")
    clock.now += 3600
    assert signer.read(cookie) is None  # an expired session is no session


@pytest.mark.parametrize("role", ["admin", "voter", "root"])
def test_a_users_cookie_with_another_role_written_in_is_forged(role: str) -> None:
    signer = SessionSigner(KEY, ttl_s=3600, clock=Clock())
    _, cookie = signer.issue("u-1", "reviewer")
    parts = cookie.split(".")
    parts[4] = role

    assert signer.read(".".join(parts)) is None
