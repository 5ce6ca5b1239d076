"""People who sign in, their roles and API tokens, what each may reach, and what the audit log
records of them. Pure.

Who may reach what (``allows``): ``/api/admin/*`` needs an admin, ``/api/review/*`` a reviewer
or an admin; everything else any user. A token's scopes narrow it further: ``read`` only the
safe methods, ``vote`` anything but the admin routes, ``admin`` everything its owner's role
allows."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from datetime import datetime
from typing import Any, Literal, get_args

__all__ = [
    "ROLES",
    "SCOPES",
    "TOKEN_PREFIX",
    "Actor",
    "AuditEntry",
    "AuditRecord",
    "Grant",
    "Member",
    "Role",
    "Scope",
    "TokenInfo",
    "User",
    "allows",
    "required_role",
]

Role = Literal["admin", "reviewer", "voter"]
#: The roles, most powerful first: an admin runs the arena, a reviewer works review queues, a
#: voter votes.
ROLES: tuple[Role, ...] = ("admin", "reviewer", "voter")
Scope = Literal["read", "vote", "admin"]
SCOPES: tuple[Scope, ...] = get_args(Scope)
#: Every API token a user creates starts so (secret scanners and people can tell it).
TOKEN_PREFIX = "arena_"
_RANK = {"admin": 2, "reviewer": 1, "voter": 0}
_SAFE = frozenset({"GET", "HEAD", "OPTIONS"})


@dataclass(frozen=True)
class User:
    id: str
    email: str | None
    name: str | None
    role: Role

    @property
    def label(self) -> str:
        """How the audit log and the page name them: the email, else the name, else the id."""
        return self.email or self.name or self.id

    @property
    def actor(self) -> Actor:
        return Actor(self.id, self.label)


@dataclass(frozen=True)
class Actor:
    """Who the audit log names for an action: a user, or a static API token (no user)."""

    id: str | None
    label: str


@dataclass(frozen=True)
class AuditEntry:
    """One line of the audit log: who (a user, or ``actor`` alone for the CLI), did what, to
    what, and the state it changed."""

    actor_id: str | None
    actor: str
    action: str
    target: str | None = None
    before: Mapping[str, Any] | None = None
    after: Mapping[str, Any] | None = None


@dataclass(frozen=True)
class Grant:
    """What a request may do: its user (none for a static ``ARENA_API_TOKENS`` token or a
    passphrase session), their role now, and the scopes of the token it came with (all for a
    session)."""

    user_id: str | None
    role: Role | None
    scopes: frozenset[Scope] = frozenset(SCOPES)
    #: How the audit log names a request without a user (a static token's digest).
    label: str = ""


def required_role(path: str) -> Role | None:
    """The least role ``path`` needs, if any."""
    if path.startswith("/api/admin/"):
        return "admin"
    if path.startswith("/api/review/"):
        return "reviewer"
    return None


def allows(grant: Grant, method: str, path: str) -> str | None:
    """``None`` when ``grant`` may make this request, else the refusal's code:
    ``insufficient_scope`` (the token's scopes) or ``forbidden_role`` (the user's role)."""
    needed = required_role(path)
    if needed == "admin" and "admin" not in grant.scopes:
        return "insufficient_scope"
    if method not in _SAFE and not grant.scopes & {"vote", "admin"}:
        return "insufficient_scope"
    if needed is not None and (grant.role is None or _RANK[grant.role] < _RANK[needed]):
        return "forbidden_role"
    return None


@dataclass(frozen=True)
class Member:
    """A user as the admin console lists them."""

    user: User
    first_seen_at: datetime
    last_seen_at: datetime


@dataclass(frozen=True)
class TokenInfo:
    """An API token as its owner and the admins see it: never the token itself."""

    id: str
    user_id: str
    owner: str
    name: str
    hint: str
    scopes: tuple[Scope, ...]
    created_at: datetime
    last_used_at: datetime | None
    revoked_at: datetime | None


@dataclass(frozen=True)
class AuditRecord:
    id: int
    at: datetime
    entry: AuditEntry
    #: The target as people read it (a user's email, a token's name), while it exists.
    target_label: str | None = None
