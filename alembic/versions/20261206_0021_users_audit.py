"""users who sign in with OpenID Connect, their API tokens, and the audit log

``users`` holds each person a provider signed in (issuer and subject, email, name, role, first
and last seen); ``user_tokens`` their API tokens (a SHA-256 of each, scopes, last use,
revocation); ``audit_log`` every sign-in and sign-out, and later every admin action, with the
state it changed before and after.

Revision ID: 0021
Revises: 0020
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

revision: str = "0021"
down_revision: str | None = "0020"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _now(name: str) -> sa.Column[object]:
    return sa.Column(name, sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now())


def upgrade() -> None:
    op.create_table(
        "users",
        sa.Column(
            "id", UUID(as_uuid=True), primary_key=True, server_default=sa.func.gen_random_uuid()
        ),
        sa.Column("issuer", sa.Text, nullable=False),
        sa.Column("subject", sa.Text, nullable=False),
        sa.Column("email", sa.Text, nullable=True),
        sa.Column("name", sa.Text, nullable=True),
        sa.Column("role", sa.Text, nullable=False, server_default=sa.text("'voter'")),
        _now("first_seen_at"),
        _now("last_seen_at"),
        sa.UniqueConstraint("issuer", "subject", name=op.f("users_issuer_subject_key")),
        sa.CheckConstraint("role IN ('admin', 'reviewer', 'voter')", name=op.f("users_role_check")),
    )
    op.create_table(
        "user_tokens",
        sa.Column(
            "id", UUID(as_uuid=True), primary_key=True, server_default=sa.func.gen_random_uuid()
        ),
        sa.Column(
            "user_id",
            UUID(as_uuid=True),
            sa.ForeignKey("users.id", ondelete="CASCADE", name=op.f("user_tokens_user_id_fkey")),
            nullable=False,
        ),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("token_hash", sa.LargeBinary, nullable=False),
        sa.Column("hint", sa.Text, nullable=False),
        sa.Column("scopes", ARRAY(sa.Text), nullable=False),
        _now("created_at"),
        sa.Column("last_used_at", sa.DateTime(timezone=True), nullable=True),
        sa.Column("revoked_at", sa.DateTime(timezone=True), nullable=True),
        sa.UniqueConstraint("token_hash", name=op.f("user_tokens_token_hash_key")),
        sa.CheckConstraint(
            "scopes <@ ARRAY['read', 'vote', 'admin']::text[] AND cardinality(scopes) > 0",
            name=op.f("user_tokens_scopes_check"),
        ),
    )
    op.create_index("user_tokens_user_id_idx", "user_tokens", ["user_id"])
    op.create_table(
        "audit_log",
        sa.Column("id", sa.BigInteger, sa.Identity(always=True), primary_key=True),
        _now("at"),
        sa.Column(
            "actor_id",
            UUID(as_uuid=True),
            sa.ForeignKey("users.id", ondelete="SET NULL", name=op.f("audit_log_actor_id_fkey")),
            nullable=True,
        ),
        sa.Column("actor", sa.Text, nullable=False),
        sa.Column("action", sa.Text, nullable=False),
        sa.Column("target", sa.Text, nullable=True),
        sa.Column("before", JSONB, nullable=True),
        sa.Column("after", JSONB, nullable=True),
    )
    op.create_index("audit_log_at_idx", "audit_log", ["at"])


def downgrade() -> None:
    op.drop_table("audit_log")
    op.drop_table("user_tokens")
    op.drop_table("users")
