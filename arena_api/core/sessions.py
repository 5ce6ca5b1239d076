"""Browser sessions behind ``ARENA_PASSPHRASE``: signed session cookies and the CSRF tokens bound
to them.

A session cookie is ``v1.<session id>.<expiry, unix seconds>.<signature>``, the signature an
HMAC-SHA256 over everything before it. Nothing is stored server-side: a cookie is valid while its
signature checks and its expiry lies ahead. The signing key is derived from the server's secret
*and* the passphrase, so changing the passphrase signs every browser out.

The CSRF token of a session is an HMAC of its id under its own key (the double-submit cookie,
signed): a request must bring it twice, in the ``arena_csrf`` cookie and the ``X-CSRF-Token``
header, and both must be the one the session's id gives. A site that can plant a cookie still
cannot guess the token of a session it did not create.

Every comparison is constant-time. Pure: the clock is injected (``time.time`` by default).
"""

from __future__ import annotations

import base64
import hashlib
import hmac
import secrets
import time
from collections.abc import Callable
from dataclasses import dataclass

__all__ = ["BrowserSession", "SessionSigner", "derive_session_key", "passphrase_matches"]

_VERSION = "v1"


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def derive_session_key(secret: bytes, passphrase: str) -> bytes:
    """The key that signs session cookies: the server's secret bound to the passphrase."""
    digest = hashlib.sha256(passphrase.encode()).digest()
    return hmac.new(secret, b"arena-session|" + digest, hashlib.sha256).digest()


def passphrase_matches(given: str, expected: str) -> bool:
    """Constant-time, whatever the lengths (both sides are hashed to one length first)."""
    return hmac.compare_digest(
        hashlib.sha256(given.encode()).digest(), hashlib.sha256(expected.encode()).digest()
    )


@dataclass(frozen=True)
class BrowserSession:
    id: str
    expires_at: int


class SessionSigner:
    def __init__(self, key: bytes, ttl_s: int, clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self._csrf_key = hmac.new(key, b"csrf", hashlib.sha256).digest()
        self.ttl_s = ttl_s
        self._clock = clock

    def _sign(self, body: str) -> str:
        return _b64(hmac.digest(self._key, body.encode(), "sha256"))

    def issue(self) -> tuple[BrowserSession, str]:
        """A new session and its cookie value."""
        session = BrowserSession(
            id=_b64(secrets.token_bytes(18)), expires_at=int(self._clock()) + self.ttl_s
        )
        body = f"{_VERSION}.{session.id}.{session.expires_at}"
        return session, f"{body}.{self._sign(body)}"

    def read(self, cookie: str | None) -> BrowserSession | None:
        """The session a cookie value carries; ``None`` when absent, forged, malformed or
        expired."""
        if not cookie or len(cookie) > 256:
            return None
        parts = cookie.split(".")
        if len(parts) != 4 or parts[0] != _VERSION or not parts[2].isdigit():
            return None
        body, signature = cookie.rpartition(".")[0], parts[3]
        if not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return None
        session = BrowserSession(id=parts[1], expires_at=int(parts[2]))
        return session if session.expires_at > self._clock() else None

    def csrf_token(self, session: BrowserSession) -> str:
        return _b64(hmac.digest(self._csrf_key, session.id.encode(), "sha256"))

    def csrf_matches(self, session: BrowserSession, header: str | None, cookie: str | None) -> bool:
        """The double submit: the header and the cookie both carry this session's token."""
        if not header or not cookie:
            return False
        expected = self.csrf_token(session).encode()
        header_ok = hmac.compare_digest(header.encode(), expected)
        cookie_ok = hmac.compare_digest(cookie.encode(), expected)
        return header_ok and cookie_ok
