"""People who sign in, and the audit log of what they do (migration 0021).

A sign-in upserts the user by (issuer, subject) — the provider's stable name for a person, never
the email, which can change hands — refreshing email, name and last seen, and writes its audit
row in the same transaction. The role comes from the provider's claims when the arena maps one
(``ARENA_OIDC_ROLE_CLAIM``), otherwise the arena keeps the role it holds (``voter`` at first).
"""

from __future__ import annotations

import json
import uuid
from collections.abc import Mapping
from typing import Any

import asyncpg

from arena_api.core.users import (
    Actor,
    AuditEntry,
    AuditRecord,
    Member,
    Role,
    Scope,
    TokenInfo,
    User,
)
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresUsers", "write_audit"]

_SIGN_IN = """
INSERT INTO users AS u (issuer, subject, email, name, role)
VALUES ($1, $2, $3, $4, coalesce($5, 'voter'))
ON CONFLICT (issuer, subject) DO UPDATE
   SET email = EXCLUDED.email, name = EXCLUDED.name, last_seen_at = now(),
       role = coalesce($5, u.role)
RETURNING id, email, name, role, (xmax = 0) AS created,
          (SELECT role FROM users WHERE issuer = $1 AND subject = $2) AS role_before
"""
_AUDIT = """
INSERT INTO audit_log (actor_id, actor, action, target, before, after)
VALUES ($1, $2, $3, $4, $5::jsonb, $6::jsonb)
"""
_GET = "SELECT id, email, name, role FROM users WHERE id = $1"
_MEMBERS = """
SELECT id, email, name, role, first_seen_at, last_seen_at FROM users
 ORDER BY (role = 'admin') DESC, (role = 'reviewer') DESC, lower(coalesce(email, name, '')), id
"""
_SET_ROLE = """
UPDATE users u SET role = $2
  FROM (SELECT id, role FROM users WHERE id = $1 FOR UPDATE) old
 WHERE u.id = old.id
RETURNING u.id, u.email, u.name, u.role, old.role AS role_before
"""
_ADMINS = "SELECT id FROM users WHERE role = 'admin' FOR UPDATE"
# The last use is written at most once a minute: a token used for every round must not turn
# each of its reads into a write.
_TOKEN_GRANT = """
WITH hit AS (
  SELECT t.id, t.user_id, u.role, t.scopes, t.last_used_at
    FROM user_tokens t JOIN users u ON u.id = t.user_id
   WHERE t.token_hash = $1 AND t.revoked_at IS NULL
), touched AS (
  UPDATE user_tokens SET last_used_at = now()
   WHERE id = (SELECT id FROM hit)
     AND (last_used_at IS NULL OR last_used_at < now() - interval '1 minute')
)
SELECT id, user_id, role, scopes FROM hit
"""
_TOKEN_COLUMNS = """
SELECT t.id, t.user_id, coalesce(u.email, u.name, u.id::text) AS owner, t.name, t.hint,
       t.scopes, t.created_at, t.last_used_at, t.revoked_at
  FROM user_tokens t JOIN users u ON u.id = t.user_id
"""
_CREATE_TOKEN = """
INSERT INTO user_tokens (user_id, name, token_hash, hint, scopes)
VALUES ($1, $2, $3, $4, $5) RETURNING id
"""
_REVOKE = """
UPDATE user_tokens SET revoked_at = now()
 WHERE id = $1 AND revoked_at IS NULL AND ($2::uuid IS NULL OR user_id = $2)
RETURNING id
"""
_AUDIT_PAGE = """
SELECT a.id, a.at, a.actor_id, a.actor, a.action, a.target, a.before, a.after,
       coalesce(u.email, u.name, t.name, m.display_name, q.name) AS target_label
  FROM audit_log a
  LEFT JOIN users u ON a.target LIKE 'user:%' AND u.id::text = substr(a.target, 6)
  LEFT JOIN user_tokens t ON a.target LIKE 'token:%' AND t.id::text = substr(a.target, 7)
  LEFT JOIN models m ON a.target LIKE 'model:%' AND m.id::text = substr(a.target, 7)
  LEFT JOIN review_queues q ON a.target LIKE 'queue:%' AND q.id::text = substr(a.target, 7)
 WHERE $2::bigint IS NULL OR a.id < $2
 ORDER BY a.id DESC LIMIT $1
"""


def _uuid(value: str | None) -> uuid.UUID | None:
    if value is None:
        return None
    try:
        return uuid.UUID(value)
    except ValueError:
        return None


def _token(row: asyncpg.Record) -> TokenInfo:
    return TokenInfo(
        id=str(row["id"]),
        user_id=str(row["user_id"]),
        owner=row["owner"],
        name=row["name"],
        hint=row["hint"],
        scopes=tuple(row["scopes"]),
        created_at=row["created_at"],
        last_used_at=row["last_used_at"],
        revoked_at=row["revoked_at"],
    )


def _loads(value: str | None) -> Mapping[str, Any] | None:
    return None if value is None else json.loads(value)


def _json(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, default=str)


async def write_audit(conn: asyncpg.Connection, entry: AuditEntry) -> None:
    """One audit row, in the caller's transaction."""
    await conn.execute(
        _AUDIT,
        entry.actor_id,
        entry.actor,
        entry.action,
        entry.target,
        _json(entry.before),
        _json(entry.after),
    )


@raises_unavailable
class PostgresUsers:
    def __init__(self, pool: asyncpg.Pool) -> None:
        self._pool = pool

    async def sign_in(
        self, issuer: str, subject: str, email: str | None, name: str | None, role: Role | None
    ) -> User:
        async with self._pool.acquire() as conn, conn.transaction():
            row = await conn.fetchrow(_SIGN_IN, issuer, subject, email, name, role)
            user = User(str(row["id"]), row["email"], row["name"], row["role"])
            changed = not row["created"] and row["role_before"] != user.role
            await write_audit(
                conn,
                AuditEntry(
                    actor_id=user.id,
                    actor=user.label,
                    action="sign_in",
                    target=f"user:{user.id}",
                    before={"role": row["role_before"]} if changed else None,
                    after={"role": user.role, "new": bool(row["created"])},
                ),
            )
        return user

    async def get(self, user_id: str) -> User | None:
        key = _uuid(user_id)
        if key is None:
            return None
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_GET, key)
        return None if row is None else User(str(row["id"]), row["email"], row["name"], row["role"])

    async def audit(self, entry: AuditEntry) -> None:
        async with self._pool.acquire() as conn:
            await write_audit(conn, entry)

    async def members(self) -> list[Member]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_MEMBERS)
        return [
            Member(
                User(str(r["id"]), r["email"], r["name"], r["role"]),
                r["first_seen_at"],
                r["last_seen_at"],
            )
            for r in rows
        ]

    async def set_role(self, user_id: str, role: Role, actor: Actor) -> tuple[Role, User] | None:
        """The user's role before, and the user after; ``None`` for no such user.

        Raises:
            ValueError: the change would leave the arena without an admin.
        """
        key = _uuid(user_id)
        if key is None:
            return None
        async with self._pool.acquire() as conn, conn.transaction():
            admins = {str(r["id"]) for r in await conn.fetch(_ADMINS)}
            if role != "admin" and admins == {user_id}:
                raise ValueError("last admin")
            row = await conn.fetchrow(_SET_ROLE, key, role)
            if row is None:
                return None
            user = User(str(row["id"]), row["email"], row["name"], row["role"])
            await write_audit(
                conn,
                AuditEntry(
                    actor.id,
                    actor.label,
                    "user_role",
                    target=f"user:{user.id}",
                    before={"role": row["role_before"]},
                    after={"role": user.role},
                ),
            )
        return row["role_before"], user

    async def grant(self, token_hash: bytes) -> tuple[str, str, Role, tuple[Scope, ...]] | None:
        """The token's id, its owner, their role now and its scopes, for a live token with
        this hash."""
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_TOKEN_GRANT, token_hash)
        if row is None:
            return None
        return str(row["id"]), str(row["user_id"]), row["role"], tuple(row["scopes"])

    async def create_token(
        self, owner: User, name: str, token_hash: bytes, hint: str, scopes: tuple[Scope, ...]
    ) -> TokenInfo:
        async with self._pool.acquire() as conn, conn.transaction():
            token_id = await conn.fetchval(
                _CREATE_TOKEN, uuid.UUID(owner.id), name, token_hash, hint, list(scopes)
            )
            await write_audit(
                conn,
                AuditEntry(
                    owner.id,
                    owner.label,
                    "token_create",
                    target=f"token:{token_id}",
                    after={"name": name, "scopes": list(scopes), "hint": hint},
                ),
            )
            row = await conn.fetchrow(_TOKEN_COLUMNS + " WHERE t.id = $1", token_id)
        return _token(row)

    async def tokens(self, user_id: str | None) -> list[TokenInfo]:
        """A user's tokens (every user's with ``None``), newest first."""
        where = "" if user_id is None else " WHERE t.user_id = $1"
        args = () if user_id is None else (_uuid(user_id),)
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_TOKEN_COLUMNS + where + " ORDER BY t.created_at DESC", *args)
        return [_token(r) for r in rows]

    async def revoke_token(
        self, token_id: str, actor: Actor, owner_id: str | None
    ) -> TokenInfo | None:
        """Revoke a live token (only one of ``owner_id``'s when given); ``None`` when there is
        no such live token."""
        key = _uuid(token_id)
        if key is None:
            return None
        owner = None if owner_id is None else uuid.UUID(owner_id)
        async with self._pool.acquire() as conn, conn.transaction():
            if await conn.fetchval(_REVOKE, key, owner) is None:
                return None
            row = await conn.fetchrow(_TOKEN_COLUMNS + " WHERE t.id = $1", key)
            token = _token(row)
            await write_audit(
                conn,
                AuditEntry(
                    actor.id,
                    actor.label,
                    "token_revoke",
                    target=f"token:{token.id}",
                    before={"name": token.name, "owner": token.owner},
                ),
            )
        return token

    async def audit_page(self, limit: int, before_id: int | None) -> list[AuditRecord]:
        async with self._pool.acquire() as conn:
            rows = await conn.fetch(_AUDIT_PAGE, limit, before_id)
        return [
            AuditRecord(
                r["id"],
                r["at"],
                AuditEntry(
                    None if r["actor_id"] is None else str(r["actor_id"]),
                    r["actor"],
                    r["action"],
                    r["target"],
                    _loads(r["before"]),
                    _loads(r["after"]),
                ),
                r["target_label"],
            )
            for r in rows
        ]
