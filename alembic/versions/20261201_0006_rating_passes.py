"""what each pass of the rating process did, for the server's /metrics

The rating process is its own process; the server exports what it did (the last pass's
duration, how old the last fit is, what the anomaly screen excluded) from this table. It keeps
the most recent passes only: the worker prunes it as it writes.

Revision ID: 0006
Revises: 0005
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0006"
down_revision: str | None = "0005"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "rating_passes",
        sa.Column("id", sa.BigInteger(), sa.Identity(always=True), nullable=False),
        sa.Column(
            "finished_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("seconds", sa.Float(), nullable=False),
        sa.Column("votes", sa.Integer(), nullable=False),
        sa.Column("votes_excluded", sa.Integer(), nullable=False),
        sa.Column("sessions_excluded", sa.Integer(), nullable=False),
        sa.Column("models", sa.Integer(), nullable=False),
        sa.Column("periodic", sa.Boolean(), nullable=False),
        sa.CheckConstraint("status IN ('rated', 'empty')", name=op.f("rating_passes_status_check")),
        sa.PrimaryKeyConstraint("id", name=op.f("rating_passes_pkey")),
    )


def downgrade() -> None:
    op.drop_table("rating_passes")
