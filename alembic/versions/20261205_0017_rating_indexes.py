"""indexes that let the rating pass read sessions and prompts without sorting every vote

``preferences_session_idx`` holds people's votes that carry a session, in session and time
order with their label: the anomaly screen walks it once (its window and grouping need no sort)
and the rating pass finds the screened sessions' votes by it. ``matchups_prompt_key_idx``
counts the rounds per prompt without a hash of every prompt key, so that the duplicate-prompt
cap reads the votes of the over-asked prompts only.

Revision ID: 0017
Revises: 0016
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0017"
down_revision: str | None = "0016"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_index(
        "preferences_session_idx",
        "preferences",
        ["anonymous_session_id", "created_at"],
        postgresql_include=["vote"],
        postgresql_where=sa.text("method = 'human' AND anonymous_session_id IS NOT NULL"),
    )
    op.create_index("matchups_prompt_key_idx", "matchups", ["prompt_key"])


def downgrade() -> None:
    op.drop_index("matchups_prompt_key_idx", table_name="matchups")
    op.drop_index("preferences_session_idx", table_name="preferences")
