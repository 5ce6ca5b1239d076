"""Browser sessions behind ``ARENA_PASSPHRASE``: signed session cookies and the CSRF tokens bound
to them.

A session cookie is ``v1.<session id>.<expiry, unix seconds>.<signature>`` (a passphrase
session) or ``v2.<session id>.<expiry>.<user id>.<role>.<signature>`` (a user signed in with
OpenID Connect), the signature an HMAC-SHA256 over everything before it. Nothing is stored
server-side: a cookie is valid while its signature checks and its expiry lies ahead. The
signing key is derived from the server's secret *and* the passphrase, so changing the passphrase
signs every browser out.

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

__all__ = [
    "SESSION_COOKIE",
    "BrowserSession",
    "SessionSigner",
    "cookie_values",
    "derive_session_key",
    "passphrase_matches",
]

#: The cookie that carries a session.
SESSION_COOKIE = "arena_session"


def cookie_values(header: bytes) -> dict[str, str]:
    """A ``Cookie`` header's cookies by name (RFC 6265 ``name=value; name=value``; the first of
    a repeated name wins, a quoted value is unquoted). Not ``http.cookies``: it took 12 µs a
    request, ten times this."""
    cookies: dict[str, str] = {}
    for pair in header.decode("latin-1").split(";"):
        name, sep, value = pair.partition("=")
        name = name.strip()
        if sep and name and name not in cookies:
            value = value.strip()
            if len(value) >= 2 and value[0] == value[-1] == '"':
                value = value[1:-1]
            cookies[name] = value
    return cookies


_VERSION, _USER_VERSION = "v1", "v2"
_ROLES = frozenset({"admin", "reviewer", "voter"})


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
    #: The signed-in user (a ``users`` row id) and their role then; ``None`` for a passphrase.
    user_id: str | None = None
    role: str | None = None


class SessionSigner:
    def __init__(self, key: bytes, ttl_s: int, clock: Callable[[], float] = time.time) -> None:
        self._key = key
        self._csrf_key = hmac.new(key, b"csrf", hashlib.sha256).digest()
        self.ttl_s = ttl_s
        self._clock = clock

    def _sign(self, body: str) -> str:
        return _b64(hmac.digest(self._key, body.encode(), "sha256"))

    def issue(
        self, user_id: str | None = None, role: str | None = None
    ) -> tuple[BrowserSession, str]:
        """A new session (of a user, when ``user_id`` is given) and its cookie value."""
        session = BrowserSession(
            id=_b64(secrets.token_bytes(18)),
            expires_at=int(self._clock()) + self.ttl_s,
            user_id=user_id,
            role=role if user_id is not None else None,
        )
        body = f"{_VERSION}.{session.id}.{session.expires_at}"
        if user_id is not None:
            body = f"{_USER_VERSION}.{session.id}.{session.expires_at}.{user_id}.{role}"
        return session, f"{body}.{self._sign(body)}"

    def read(self, cookie: str | None) -> BrowserSession | None:
        """The session a cookie value carries; ``None`` when absent, forged, malformed or
        expired."""
        if not cookie or len(cookie) > 256:
            return None
        parts = cookie.split(".")
        shape = (parts[0], len(parts))
        if shape not in ((_VERSION, 4), (_USER_VERSION, 6)) or not parts[2].isdigit():
            return None
        body, signature = cookie.rpartition(".")[0], parts[-1]
        if not hmac.compare_digest(signature.encode(), self._sign(body).encode()):
            return None
        user = (parts[3], parts[4]) if len(parts) == 6 else (None, None)
        if user[1] is not None and user[1] not in _ROLES:
            return None
        session = BrowserSession(parts[1], int(parts[2]), *user)
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
