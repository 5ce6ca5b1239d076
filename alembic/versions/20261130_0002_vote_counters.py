"""keep per-model and per-pair vote counters current with a trigger on preferences

The leaderboard's win/loss records and the matchmaker's pair counts are read on the request path;
counting them from `preferences` would cost O(votes) per request. A trigger maintains them in the
voting transaction instead, for every writer (the vote route, a judge, the demo seeder), and
`arena_rebuild_vote_stats()` recounts them from scratch (after bulk loads, and here to backfill).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena_api.db.sql import sql, statements

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "model_vote_stats",
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("wins", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("losses", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("ties", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("skips", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name=op.f("model_vote_stats_model_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_vote_stats_pkey")),
    )
    op.create_table(
        "pair_vote_stats",
        sa.Column("model_lo", sa.UUID(), nullable=False),
        sa.Column("model_hi", sa.UUID(), nullable=False),
        sa.Column("games", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.CheckConstraint(
            "model_lo < model_hi", name=op.f("pair_vote_stats_canonical_order_check")
        ),
        sa.ForeignKeyConstraint(
            ["model_lo"],
            ["models.id"],
            name=op.f("pair_vote_stats_model_lo_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["model_hi"],
            ["models.id"],
            name=op.f("pair_vote_stats_model_hi_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_lo", "model_hi", name=op.f("pair_vote_stats_pkey")),
    )
    op.execute(sql("arena_count_vote", 1))
    for statement in statements("preferences_count_vote", 1):
        op.execute(statement)
    op.execute(sql("arena_rebuild_vote_stats", 1))
    op.execute("SELECT arena_rebuild_vote_stats()")


def downgrade() -> None:
    op.execute("DROP TRIGGER preferences_count_vote ON preferences")
    op.execute("DROP FUNCTION arena_count_vote()")
    op.execute("DROP FUNCTION arena_rebuild_vote_stats()")
    op.drop_table("pair_vote_stats")
    op.drop_table("model_vote_stats")
