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

from arena_api.core.users import AuditEntry, Role, User
from arena_api.db.outages import raises_unavailable

__all__ = ["PostgresUsers"]

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


def _json(value: Mapping[str, Any] | None) -> str | None:
    return None if value is None else json.dumps(value, default=str)


async def _audit(conn: asyncpg.Connection, entry: AuditEntry) -> None:
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
            await _audit(
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
        try:
            key = uuid.UUID(user_id)
        except ValueError:
            return None
        async with self._pool.acquire() as conn:
            row = await conn.fetchrow(_GET, key)
        return None if row is None else User(str(row["id"]), row["email"], row["name"], row["role"])

    async def audit(self, entry: AuditEntry) -> None:
        async with self._pool.acquire() as conn:
            await _audit(conn, entry)
