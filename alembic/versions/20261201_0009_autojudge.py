"""the shadow auto-judge's queue: one claim per shadow matchup, leased, retried, finished

In ``ARENA_EXPOSURE=shadow`` the judge votes on shadow matchups in the background. A worker
claims the oldest unjudged one (an ``autojudge_claims`` row, leased for a while), asks the judge
and marks the claim done. A worker that dies mid-judgement leaves a lease that runs out, so the
matchup is claimed again; a done claim is never claimed again, so no matchup is judged twice and
none is skipped. A judge that keeps failing on a matchup gives up after a few attempts. A
partial index keeps the search for shadow matchups off the blind ones.

Revision ID: 0009
Revises: 0008
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0009"
down_revision: str | None = "0008"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "autojudge_claims",
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column("claimed_at", sa.DateTime(timezone=True), nullable=False),
        sa.Column("attempts", sa.Integer(), server_default=sa.text("1"), nullable=False),
        sa.Column("done", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.CheckConstraint("attempts >= 1", name=op.f("autojudge_claims_attempts_check")),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name=op.f("autojudge_claims_matchup_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("matchup_id", name=op.f("autojudge_claims_pkey")),
    )
    op.create_index(
        "matchups_shadow_idx",
        "matchups",
        ["created_at"],
        postgresql_where=sa.text("mode = 'shadow'"),
    )


def downgrade() -> None:
    op.drop_index("matchups_shadow_idx", table_name="matchups")
    op.drop_table("autojudge_claims")
