"""Sign-in with OpenID Connect: the rules of the authorization-code flow, without any I/O.

The flow (``services.identity`` does the talking):

1. ``/auth/oidc/start`` makes a ``Flow``: a random ``state`` (ties the callback to this browser),
   ``nonce`` (ties the ID token to this flow) and PKCE ``verifier`` (S256; ties the code to this
   flow), plus where to go afterwards. It travels in a short-lived cookie, sealed with an HMAC
   (``seal_flow``/``open_flow``): nothing is kept on the server, so any replica can finish it.
2. The provider sends the browser back with ``code`` and ``state``; ``state`` must equal the
   sealed one, and the flow must not have expired (``FLOW_TTL_S``).
3. The code is exchanged for tokens; the ID token's signature is checked against the provider's
   keys, then its claims here (``check_id_token``): issuer, audience, authorised party, expiry,
   issue time and nonce.
4. Who may enter and as what: ``check_email`` (allowed domains need a verified email in one of
   them) and ``role_for`` (the role claim's values mapped to ``admin``/``reviewer``/``voter``).

Every refusal is an ``OidcRefused`` with a stable code, shown on the login page.
"""

from __future__ import annotations

import base64
import hmac
import json
import secrets
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any

from arena_api.core.errors import ArenaError
from arena_api.core.users import Role

__all__ = [
    "FLOW_TTL_S",
    "Flow",
    "OidcRefused",
    "check_email",
    "check_id_token",
    "claim_values",
    "new_flow",
    "open_flow",
    "role_for",
    "seal_flow",
]

#: How long a sign-in may take at the provider before its flow is void.
FLOW_TTL_S = 600
_LEEWAY_S = 60


class OidcRefused(ArenaError):
    """A sign-in that cannot complete. ``code`` says why."""

    def __init__(self, code: str, message: str, status: int = 400) -> None:
        super().__init__(message, status=status, code=code)


def _b64(raw: bytes) -> str:
    return base64.urlsafe_b64encode(raw).rstrip(b"=").decode("ascii")


def _unb64(text: str) -> bytes:
    return base64.urlsafe_b64decode(text + "=" * (-len(text) % 4))


@dataclass(frozen=True)
class Flow:
    """One sign-in under way."""

    state: str
    nonce: str
    verifier: str
    next_path: str
    expires_at: int


def new_flow(next_path: str, now: float) -> Flow:
    return Flow(
        state=_b64(secrets.token_bytes(24)),
        nonce=_b64(secrets.token_bytes(24)),
        verifier=_b64(secrets.token_bytes(48)),  # 64 characters, within RFC 7636's 43..128
        next_path=next_path,
        expires_at=int(now) + FLOW_TTL_S,
    )


def seal_flow(key: bytes, flow: Flow) -> str:
    """``flow`` as a cookie value: its JSON and an HMAC-SHA256 of it under ``key``."""
    body = _b64(
        json.dumps(
            [flow.state, flow.nonce, flow.verifier, flow.next_path, flow.expires_at],
            separators=(",", ":"),
        ).encode()
    )
    return f"{body}.{_b64(hmac.digest(key, body.encode(), 'sha256'))}"


def open_flow(key: bytes, sealed: str | None, state: str | None, now: float) -> Flow:
    """The flow a callback finishes: sealed by us, not expired, and ``state`` its own.

    Raises:
        OidcRefused: ``oidc_state_mismatch`` (no flow cookie, a forged one, or another state)
            or ``oidc_flow_expired``.
    """
    mismatch = OidcRefused(
        "oidc_state_mismatch",
        "This sign-in did not start in this browser, or was tampered with. Sign in again.",
    )
    if not sealed or not state or len(sealed) > 2048:
        raise mismatch
    body, _, signature = sealed.partition(".")
    expected = _b64(hmac.digest(key, body.encode(), "sha256"))
    if not hmac.compare_digest(signature.encode(), expected.encode()):
        raise mismatch
    try:
        fields = json.loads(_unb64(body))
        flow = Flow(*fields)
    except (ValueError, TypeError) as exc:
        raise mismatch from exc
    if not hmac.compare_digest(flow.state.encode(), state.encode()):
        raise mismatch
    if flow.expires_at <= now:
        raise OidcRefused("oidc_flow_expired", "The sign-in took too long. Sign in again.")
    return flow


def check_id_token(
    claims: Mapping[str, Any], *, issuer: str, client_id: str, nonce: str, now: float
) -> None:
    """The ID token's claims as OpenID Connect Core §3.1.3.7 requires (signature already
    checked).

    Raises:
        OidcRefused: ``oidc_token_invalid``, naming the claim that failed.
    """

    def refuse(why: str) -> OidcRefused:
        return OidcRefused("oidc_token_invalid", f"The provider's ID token {why}.", status=401)

    if claims.get("iss") != issuer:
        raise refuse("comes from another issuer")
    audience = claims.get("aud")
    audiences = [audience] if isinstance(audience, str) else audience
    if not isinstance(audiences, list) or client_id not in audiences:
        raise refuse("is meant for another client")
    if len(audiences) > 1 and claims.get("azp") != client_id:
        raise refuse("names another authorised party")
    if "azp" in claims and claims["azp"] != client_id:
        raise refuse("names another authorised party")
    expires, issued = claims.get("exp"), claims.get("iat")
    if not isinstance(expires, int | float) or expires + _LEEWAY_S <= now:
        raise refuse("has expired")
    if not isinstance(issued, int | float) or issued - _LEEWAY_S > now:
        raise refuse("was issued in the future")
    given = claims.get("nonce")
    if not isinstance(given, str) or not hmac.compare_digest(given.encode(), nonce.encode()):
        raise refuse("does not carry this sign-in's nonce")
    if not isinstance(claims.get("sub"), str) or not claims["sub"]:
        raise refuse("names no subject")


def claim_values(claims: Mapping[str, Any], path: str) -> tuple[str, ...]:
    """The strings a claim holds: a string (split on spaces and commas, as some providers send
    roles), a list of strings, or an object reached by a dotted ``path``
    (``realm_access.roles``). Anything else holds none."""
    value: Any = claims
    for part in path.split("."):
        if not isinstance(value, Mapping) or part not in value:
            return ()
        value = value[part]
    if isinstance(value, str):
        return tuple(v for v in value.replace(",", " ").split() if v)
    if isinstance(value, list):
        return tuple(v for v in value if isinstance(v, str))
    return ()


def role_for(
    claims: Mapping[str, Any],
    role_claim: str,
    admin_values: Sequence[str],
    reviewer_values: Sequence[str],
) -> Role:
    """The role the claims give: ``admin`` if any value is an admin value, else ``reviewer`` if
    any is a reviewer value, else ``voter``."""
    values = set(claim_values(claims, role_claim))
    if values & set(admin_values):
        return "admin"
    if values & set(reviewer_values):
        return "reviewer"
    return "voter"


def check_email(claims: Mapping[str, Any], allowed_domains: Sequence[str]) -> str | None:
    """The user's email; with ``allowed_domains``, only a verified one in those domains.

    Raises:
        OidcRefused: ``oidc_email_unverified`` or ``oidc_domain_refused`` (403).
    """
    email = claims.get("email")
    email = email.strip() if isinstance(email, str) and "@" in email else None
    if not allowed_domains:
        return email
    if email is None or claims.get("email_verified") not in (True, "true"):
        raise OidcRefused(
            "oidc_email_unverified",
            "This arena admits verified email addresses of some domains only; your provider "
            "gave none.",
            status=403,
        )
    if email.rpartition("@")[2].lower() not in allowed_domains:
        raise OidcRefused(
            "oidc_domain_refused",
            f"{email} is not in a domain this arena admits.",
            status=403,
        )
    return email
