"""an index of the votes that carry a reason, so counting reasons reads them alone

``preferences_reasons_idx`` holds, for each vote with a reason, what the per-model reason count
needs (method, winner, reasons, matchup): the count is an index-only scan whose cost grows with
the votes that say why, never with the others (``arena_api.db.reasons``).

Revision ID: 0019
Revises: 0018
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0019"
down_revision: str | None = "0018"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "preferences_reasons_idx",
        "preferences",
        ["method"],
        postgresql_include=["winner_model_id", "reasons", "matchup_id"],
        postgresql_where=sa.text("reasons <> '{}'::text[]"),
    )


def downgrade() -> None:
    op.drop_index("preferences_reasons_idx", table_name="preferences")
