"""the replica that ran each round (several replicas sharing REDIS_URL)

``matchups.replica`` is the id of the server process that ran the round when it was one replica
of several; NULL for a single process. If that replica dies mid-round, another one finds its
rounds by this column and stores the answers it had not stored as ``replica_lost``. The index
holds only cluster rounds, newest per replica first.

Revision ID: 0016
Revises: 0015
Create Date: 2026-12-02
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0016"
down_revision: str | None = "0015"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("matchups", sa.Column("replica", sa.Text(), nullable=True))
    op.create_index(
        "matchups_replica_idx",
        "matchups",
        ["replica", "created_at"],
        postgresql_where=sa.text("replica IS NOT NULL"),
    )


def downgrade() -> None:
    op.drop_index("matchups_replica_idx", table_name="matchups")
    op.drop_column("matchups", "replica")
