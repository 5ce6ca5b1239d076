"""Users, their roles and API tokens, and the audit log: what the edge asks and the admin routes
do.

The edge (``routes._access``) asks for the grant of a user's API token (``token_grant``) and a
session user's role now (``current_role``): both are kept for ``CACHE_S`` seconds per process,
so a token used for every round costs one lookup every few seconds, and a role taken away or a
token revoked stops working within that time everywhere (at once in the process that did it).

A token is ``arena_`` and 43 random URL-safe characters; only its SHA-256 is stored, with its
first ten characters as a hint. It is shown once, at creation. Scopes: ``read``, ``vote``,
``admin`` (only an admin may create one with ``admin``; it works only while its owner is one).
"""

from __future__ import annotations

import hashlib
import secrets
import time
from collections.abc import Callable, Sequence
from typing import Protocol

from arena_api.core.errors import ArenaError, InvalidRequest, NotFound
from arena_api.core.sessions import BrowserSession
from arena_api.core.users import (
    ROLES,
    SCOPES,
    TOKEN_PREFIX,
    Actor,
    AuditEntry,
    AuditRecord,
    Grant,
    Member,
    Role,
    Scope,
    TokenInfo,
    User,
)

__all__ = ["CACHE_S", "UserAdmin", "UserDirectory"]

#: How long a token's grant or a user's role is believed before it is read again.
CACHE_S = 10.0
_CACHE_LIMIT = 10_000
_MAX_NAME = 100


class UserDirectory(Protocol):
    async def get(self, user_id: str) -> User | None: ...

    async def members(self) -> list[Member]: ...

    async def set_role(
        self, user_id: str, role: Role, actor: Actor
    ) -> tuple[Role, User] | None: ...

    async def grant(self, token_hash: bytes) -> tuple[str, str, Role, tuple[Scope, ...]] | None: ...

    async def create_token(
        self, owner: User, name: str, token_hash: bytes, hint: str, scopes: tuple[Scope, ...]
    ) -> TokenInfo: ...

    async def tokens(self, user_id: str | None) -> list[TokenInfo]: ...

    async def revoke_token(
        self, token_id: str, actor: Actor, owner_id: str | None
    ) -> TokenInfo | None: ...

    async def audit_page(self, limit: int, before_id: int | None) -> list[AuditRecord]: ...

    async def audit(self, entry: AuditEntry) -> None: ...


class LastAdmin(ArenaError):
    status, code = 409, "last_admin"

    def __init__(self) -> None:
        super().__init__("The arena would have no admin left; make someone else an admin first")


class UserAdmin:
    def __init__(
        self, directory: UserDirectory, *, monotonic: Callable[[], float] = time.monotonic
    ) -> None:
        self._directory = directory
        self._monotonic = monotonic
        self._grants: dict[bytes, tuple[float, str | None, Grant | None]] = {}
        self._roles: dict[str, tuple[float, Role | None]] = {}

    # -- the edge ------------------------------------------------------------------------------

    async def token_grant(self, token: bytes) -> Grant | None:
        """What a user's API token may do, or ``None`` for no live token."""
        if not token.startswith(TOKEN_PREFIX.encode()) or len(token) > 200:
            return None
        digest = hashlib.sha256(token).digest()
        now = self._monotonic()
        cached = self._grants.get(digest)
        if cached is not None and cached[0] > now:
            return cached[2]
        found = await self._directory.grant(digest)
        token_id, grant = None, None
        if found is not None:
            token_id, user_id, role, scopes = found
            grant = Grant(user_id, role, frozenset(scopes))
        if len(self._grants) >= _CACHE_LIMIT:
            self._grants.clear()
        self._grants[digest] = (now + CACHE_S, token_id, grant)
        return grant

    async def current_role(self, user_id: str) -> Role | None:
        """A session user's role now (``None``: the user is gone)."""
        now = self._monotonic()
        cached = self._roles.get(user_id)
        if cached is not None and cached[0] > now:
            return cached[1]
        user = await self._directory.get(user_id)
        role = None if user is None else user.role
        if len(self._roles) >= _CACHE_LIMIT:
            self._roles.clear()
        self._roles[user_id] = (now + CACHE_S, role)
        return role

    async def session_grant(self, session: BrowserSession | None) -> Grant | None:
        """What a browser session's user may do, by the role they hold now; ``None`` for no
        session, a passphrase session or a user who is gone."""
        if session is None or session.user_id is None:
            return None
        role = await self.current_role(session.user_id)
        return None if role is None else Grant(session.user_id, role)

    async def actor(self, grant: Grant) -> tuple[Actor, User | None]:
        """Who a request is, for the audit log, and their user row (none for a static token)."""
        if grant.user_id is None:
            return Actor(None, grant.label or "api-token"), None
        user = await self._directory.get(grant.user_id)
        if user is None:
            raise ArenaError("This user no longer exists", status=401, code="unknown_user")
        return user.actor, user

    # -- users and roles -----------------------------------------------------------------------

    async def members(self) -> list[Member]:
        return await self._directory.members()

    async def set_role(self, user_id: str, role: str, actor: Actor) -> tuple[Role, User]:
        """Raises: InvalidRequest (no such role), NotFound, LastAdmin."""
        if role not in ROLES:
            raise InvalidRequest(f"role must be one of {', '.join(ROLES)}")
        try:
            changed = await self._directory.set_role(user_id, role, actor)
        except ValueError as exc:
            raise LastAdmin() from exc
        if changed is None:
            raise NotFound("No such user")
        self._roles.pop(user_id, None)
        self._grants.clear()  # tokens carry their owner's role
        return changed

    # -- tokens --------------------------------------------------------------------------------

    async def create_token(
        self, owner: User, name: str, scopes: Sequence[str]
    ) -> tuple[TokenInfo, str]:
        """A new token of ``owner`` and its value (shown once).

        Raises:
            InvalidRequest: a name that is empty or too long, no scope or an unknown one.
            ArenaError: 403 ``forbidden_role``, ``admin`` asked by someone who is not an admin.
        """
        name = name.strip()
        if not 0 < len(name) <= _MAX_NAME:
            raise InvalidRequest(f"name must be 1 to {_MAX_NAME} characters")
        wanted = tuple(dict.fromkeys(scopes))
        if not wanted or any(s not in SCOPES for s in wanted):
            raise InvalidRequest(f"scopes must be some of {', '.join(SCOPES)}")
        if "admin" in wanted and owner.role != "admin":
            raise ArenaError(
                "Only an admin may create a token with the admin scope",
                status=403,
                code="forbidden_role",
            )
        value = TOKEN_PREFIX + secrets.token_urlsafe(32)
        info = await self._directory.create_token(
            owner,
            name,
            hashlib.sha256(value.encode()).digest(),
            value[:10],
            wanted,  # type: ignore[arg-type]
        )
        return info, value

    async def tokens(self, user_id: str | None) -> list[TokenInfo]:
        return await self._directory.tokens(user_id)

    async def revoke_token(self, token_id: str, actor: Actor, owner_id: str | None) -> TokenInfo:
        """Raises: NotFound (no such live token, or not ``owner_id``'s)."""
        revoked = await self._directory.revoke_token(token_id, actor, owner_id)
        if revoked is None:
            raise NotFound("No such live token")
        for digest, (_, cached_id, _) in list(self._grants.items()):
            if cached_id == revoked.id:
                del self._grants[digest]
        return revoked

    # -- the audit log -------------------------------------------------------------------------

    async def audit(self, limit: int, before_id: int | None) -> list[AuditRecord]:
        return await self._directory.audit_page(limit, before_id)
