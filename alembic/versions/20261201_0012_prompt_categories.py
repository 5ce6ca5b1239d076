"""what each prompt is about: its categories, language and normalised key, stored with its round

``matchups.categories`` (``coding``, ``math``, ``creative_writing``, ``instruction_following``,
``longer_query``, ``multi_turn``; ``arena_api.core.categories``), ``language`` (an ISO 639 code,
or ``und``) and ``prompt_key`` (a hash equal for the same prompt asked again) are written with
every new round. Rounds stored before this revision have NULL there until ``arena db
backfill-categories`` classifies them.

Revision ID: 0012
Revises: 0011
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0012"
down_revision: str | None = "0011"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("matchups", sa.Column("categories", postgresql.ARRAY(sa.Text()), nullable=True))
    op.add_column("matchups", sa.Column("language", sa.Text(), nullable=True))
    op.add_column("matchups", sa.Column("prompt_key", sa.Text(), nullable=True))
    # The backfill finds what it has still to classify without reading the rest.
    op.create_index(
        "matchups_unclassified_idx",
        "matchups",
        ["id"],
        postgresql_where=sa.text("categories IS NULL"),
    )


def downgrade() -> None:
    op.drop_index("matchups_unclassified_idx", table_name="matchups")
    for column in ("prompt_key", "language", "categories"):
        op.drop_column("matchups", column)
