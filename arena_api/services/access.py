"""Who may use the arena from a browser: the ``ARENA_PASSPHRASE`` login and the sessions it opens.

The HTTP edge (``arena_api.routes._access``) asks this service whether a cookie is a session and
whether a request's CSRF token is its session's; the login page (``arena_api.routes.login``) asks
it to check a passphrase. Wrong passphrases are counted per client address in sliding windows
(``ARENA_LOGIN_RATE_LIMIT``); past them every attempt, right or wrong, is refused until the
oldest wrong one leaves its window, so the passphrase cannot be guessed at speed.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from dataclasses import dataclass

from arena_api.core.errors import ArenaError
from arena_api.core.ratelimit import Limit, Limiter, RateLimiter, refusal_message
from arena_api.core.sessions import (
    SESSION_COOKIE,
    BrowserSession,
    SessionSigner,
    cookie_values,
    derive_session_key,
    passphrase_matches,
)
from arena_api.core.users import User

__all__ = ["AccessService", "LoginRateLimited", "SignedIn", "WrongPassphrase"]

_LOGIN = "login"


class WrongPassphrase(ArenaError):
    status, code = 401, "wrong_passphrase"

    def __init__(self) -> None:
        super().__init__("That passphrase is not right")


class LoginRateLimited(ArenaError):
    status, code = 429, "rate_limited"

    def __init__(self, retry_after_s: int) -> None:
        super().__init__(refusal_message(retry_after_s))
        self.retry_after_s = retry_after_s


@dataclass(frozen=True)
class SignedIn:
    """A session just opened: the cookie value that carries it and its CSRF token."""

    session: BrowserSession
    cookie: str
    csrf_token: str


class AccessService:
    def __init__(
        self,
        *,
        passphrase: str | None,
        secret: bytes,
        ttl_s: int,
        login_limits: tuple[Limit, ...],
        single_sign_on: bool = False,
        clock: Callable[[], float] = time.time,
        monotonic: Callable[[], float] = time.monotonic,
        failures: Limiter | None = None,
    ) -> None:
        """``failures`` counts wrong passphrases (a cluster's shared counter); by default this
        process counts them under ``login_limits``."""
        self._passphrase = passphrase
        self.single_sign_on = single_sign_on
        self._signer = SessionSigner(derive_session_key(secret, passphrase or ""), ttl_s, clock)
        self._failures = failures or RateLimiter(login_limits, monotonic)

    @property
    def enabled(self) -> bool:
        """A passphrase is set or people sign in with OpenID Connect: the UI and cookie
        requests need a session."""
        return self._passphrase is not None or self.single_sign_on

    @property
    def has_passphrase(self) -> bool:
        return self._passphrase is not None

    @property
    def ttl_s(self) -> int:
        return self._signer.ttl_s

    async def sign_in(self, passphrase: str, client: str) -> SignedIn:
        """Open a session for the right passphrase.

        Raises:
            LoginRateLimited: ``client`` gave too many wrong passphrases lately.
            WrongPassphrase: this one is wrong (and is counted).
        """
        refusal = await self._failures.peek(_LOGIN, client)
        if refusal is not None:
            raise LoginRateLimited(refusal.retry_after_s)
        if self._passphrase is None or not passphrase_matches(passphrase, self._passphrase):
            await self._failures.check(_LOGIN, client)
            raise WrongPassphrase()
        session, cookie = self._signer.issue()
        return SignedIn(session, cookie, self._signer.csrf_token(session))

    def open_user_session(self, user: User) -> SignedIn:
        """A session for ``user``, carrying their id and role."""
        session, cookie = self._signer.issue(user.id, user.role)
        return SignedIn(session, cookie, self._signer.csrf_token(session))

    def session_of(self, cookie_header: str) -> BrowserSession | None:
        """The live session a whole ``Cookie`` header carries (a socket's, say)."""
        return self.session(cookie_values(cookie_header.encode("latin-1")).get(SESSION_COOKIE))

    def session(self, cookie: str | None) -> BrowserSession | None:
        """The live session ``cookie`` carries, if it carries one."""
        return self._signer.read(cookie)

    def csrf_token(self, session: BrowserSession) -> str:
        return self._signer.csrf_token(session)

    def csrf_matches(self, session: BrowserSession, header: str | None, cookie: str | None) -> bool:
        return self._signer.csrf_matches(session, header, cookie)
