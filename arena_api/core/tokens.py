"""Signed matchup tokens: the proof a voter saw a matchup, checked before a vote is recorded.

A token is ``<payload>.<signature>``: ``payload`` is the unpadded base64url encoding of the
compact JSON claims, ``signature`` the unpadded base64url HMAC-SHA256 of the payload string
under the server secret. Only ``token_hash(token)`` is stored.

The claims are signed, not encrypted, so they must not identify a model: model ids are public
(``/models``, the leaderboard) and a voter holds the token before voting. The slot claims are
therefore opaque HMAC digests binding (slot, matchup, model) under the secret; ``slots_match``
checks them against the stored matchup. A random nonce makes every token unique, so a token
minted again for the same matchup never equals the one that was served (whose hash is stored).

    VoteError (arena_api.core.errors)
    ├── TokenInvalid                401 invalid_token: malformed, bad signature, bad claims
    └── TokenExpired                401 token_expired: signature valid, past its expiry
"""

from __future__ import annotations

import base64
import binascii
import hashlib
import hmac
import json
import re
import secrets
import time
import uuid
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from arena_api.core.errors import VoteError

__all__ = [
    "DEFAULT_TTL_SECONDS",
    "MIN_SECRET_BYTES",
    "MatchupTokenService",
    "TokenClaims",
    "TokenExpired",
    "TokenInvalid",
    "generate_dev_secret",
    "token_hash",
]

DEFAULT_TTL_SECONDS = 900
MIN_SECRET_BYTES = 16
# Far above any token we mint (a session id is bounded upstream); caps the work of a bad input.
_MAX_TOKEN_CHARS = 4096
_B64URL = re.compile(r"[A-Za-z0-9_-]+")
_CLAIM_KEYS = frozenset({"m", "a", "b", "s", "iat", "exp", "n"})


class TokenInvalid(VoteError):
    """The token is malformed, its signature does not match, or its claims cannot be read."""

    status, code = 401, "invalid_token"


class TokenExpired(VoteError):
    """The token is authentic but older than its time to live."""

    status, code = 401, "token_expired"


@dataclass(frozen=True)
class TokenClaims:
    """What a matchup token asserts. Times are unix seconds; slot claims are opaque digests."""

    matchup_id: uuid.UUID
    slot_a: str
    slot_b: str
    session_id: str | None
    issued_at: int
    expires_at: int


def generate_dev_secret() -> bytes:
    """A random 32-byte secret for development, when no ``MATCHUP_TOKEN_SECRET`` is set.

    Tokens signed with it stop verifying when the process restarts.
    """
    return secrets.token_bytes(32)


def token_hash(token: str) -> str:
    """The lowercase hex SHA-256 of ``token``: the only form of a token that is stored."""
    return hashlib.sha256(token.encode("utf-8")).hexdigest()


class MatchupTokenService:
    """Mints and verifies matchup tokens with one HMAC secret.

    Args:
        secret: The HMAC-SHA256 key, at least ``MIN_SECRET_BYTES`` long.
        ttl_seconds: How long a token stays valid after it is minted.
        clock: Returns the current unix time in seconds; injected for tests.

    Raises:
        ValueError: the secret is too short or ``ttl_seconds`` is not positive.
    """

    def __init__(
        self,
        secret: bytes,
        *,
        ttl_seconds: int = DEFAULT_TTL_SECONDS,
        clock: Callable[[], float] = time.time,
    ) -> None:
        if len(secret) < MIN_SECRET_BYTES:
            raise ValueError(f"the token secret must be at least {MIN_SECRET_BYTES} bytes long")
        if ttl_seconds <= 0:
            raise ValueError("ttl_seconds must be positive")
        self._secret = bytes(secret)
        self._ttl_seconds = ttl_seconds
        self._clock = clock

    def __repr__(self) -> str:
        # Never show the secret.
        return f"MatchupTokenService(ttl_seconds={self._ttl_seconds})"

    @property
    def ttl_seconds(self) -> int:
        return self._ttl_seconds

    def mint(
        self,
        matchup_id: uuid.UUID,
        slot_a_model_id: uuid.UUID,
        slot_b_model_id: uuid.UUID,
        session_id: str | None,
    ) -> str:
        """A signed token for one matchup, valid for ``ttl_seconds`` from now."""
        issued_at = int(self._clock())
        claims = {
            "m": str(matchup_id),
            "a": self._slot_digest("A", matchup_id, slot_a_model_id),
            "b": self._slot_digest("B", matchup_id, slot_b_model_id),
            "s": session_id,
            "iat": issued_at,
            "exp": issued_at + self._ttl_seconds,
            "n": _b64encode(secrets.token_bytes(9)),
        }
        payload = _b64encode(json.dumps(claims, separators=(",", ":")).encode("ascii"))
        return f"{payload}.{self._sign(payload)}"

    def verify(self, token: str) -> TokenClaims:
        """The claims of an authentic, unexpired token.

        A token is expired from ``expires_at`` on: with the default TTL it verifies 899 s after
        minting and fails at 900 s.

        Raises:
            TokenInvalid: the token is malformed, wrongly signed or carries unreadable claims.
            TokenExpired: the token is authentic but expired.
        """
        payload, signature = _split(token)
        expected = self._sign(payload)
        # Both are ASCII here (checked by _split), so compare_digest accepts them.
        if not hmac.compare_digest(expected.encode("ascii"), signature.encode("ascii")):
            raise TokenInvalid("the vote token is invalid")
        claims = _parse_claims(payload)
        if self._clock() >= claims.expires_at:
            raise TokenExpired("the vote token has expired")
        return claims

    def slots_match(
        self, claims: TokenClaims, slot_a_model_id: uuid.UUID, slot_b_model_id: uuid.UUID
    ) -> bool:
        """Do the token's slot claims name these models (for the matchup it was minted for)?"""
        expected_a = self._slot_digest("A", claims.matchup_id, slot_a_model_id)
        expected_b = self._slot_digest("B", claims.matchup_id, slot_b_model_id)
        return hmac.compare_digest(expected_a, claims.slot_a) and hmac.compare_digest(
            expected_b, claims.slot_b
        )

    def _slot_digest(self, slot: str, matchup_id: uuid.UUID, model_id: uuid.UUID) -> str:
        message = f"slot:{slot}:{matchup_id}:{model_id}".encode("ascii")
        return _b64encode(hmac.new(self._secret, message, hashlib.sha256).digest()[:16])

    def _sign(self, payload: str) -> str:
        digest = hmac.new(self._secret, payload.encode("ascii"), hashlib.sha256).digest()
        return _b64encode(digest)


def _b64encode(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _b64decode(text: str) -> bytes:
    padded = text + "=" * (-len(text) % 4)
    return base64.b64decode(padded, altchars=b"-_", validate=True)


def _split(token: object) -> tuple[str, str]:
    if not isinstance(token, str) or len(token) > _MAX_TOKEN_CHARS:
        raise TokenInvalid("the vote token is invalid")
    parts = token.split(".")
    if len(parts) != 2 or not all(_B64URL.fullmatch(part) for part in parts):
        raise TokenInvalid("the vote token is invalid")
    return parts[0], parts[1]


def _parse_claims(payload: str) -> TokenClaims:
    try:
        raw: Any = json.loads(_b64decode(payload))
    except (binascii.Error, ValueError):  # JSONDecodeError and UnicodeDecodeError included
        raise TokenInvalid("the vote token is invalid") from None
    if not isinstance(raw, dict) or raw.keys() != _CLAIM_KEYS:
        raise TokenInvalid("the vote token is invalid")
    session_id = raw["s"]
    issued_at = raw["iat"]
    expires_at = raw["exp"]
    slots = (raw["a"], raw["b"], raw["n"])
    if (
        not all(isinstance(v, str) and _B64URL.fullmatch(v) for v in slots)
        or not (session_id is None or isinstance(session_id, str))
        or not _is_int(issued_at)
        or not _is_int(expires_at)
    ):
        raise TokenInvalid("the vote token is invalid")
    try:
        return TokenClaims(
            matchup_id=_uuid(raw["m"]),
            slot_a=raw["a"],
            slot_b=raw["b"],
            session_id=session_id,
            issued_at=issued_at,
            expires_at=expires_at,
        )
    except (TypeError, ValueError):
        raise TokenInvalid("the vote token is invalid") from None


def _is_int(value: object) -> bool:
    return isinstance(value, int) and not isinstance(value, bool)


def _uuid(value: object) -> uuid.UUID:
    if not isinstance(value, str):
        raise TypeError("a uuid claim must be a string")
    return uuid.UUID(value)
