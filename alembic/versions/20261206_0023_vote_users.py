"""a signed-in person's votes carry their user

``preferences.user_id``: the user who cast a vote when they were signed in with OpenID Connect
(null for anonymous voters, the judge, suites and imports), so a per-user daily cap
(``ARENA_USER_VOTE_CAP``) can count them through ``preferences_user_idx``, and exports can name
the voter as a salted hash.

Revision ID: 0023
Revises: 0022
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision: str = "0023"
down_revision: str | None = "0022"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "preferences",
        sa.Column(
            "user_id",
            UUID(as_uuid=True),
            sa.ForeignKey("users.id", ondelete="SET NULL", name=op.f("preferences_user_id_fkey")),
            nullable=True,
        ),
    )
    op.create_index(
        "preferences_user_idx",
        "preferences",
        ["user_id", "created_at"],
        postgresql_where=sa.text("user_id IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("preferences_user_idx", table_name="preferences")
    op.drop_column("preferences", "user_id")
