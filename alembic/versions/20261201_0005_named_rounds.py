"""named side-by-side rounds, and the rating of every population that includes them

A person may pick the two models and see their names while they chat (``mode = 'named'``). Such
votes are kept out of the blind rating (``model_ratings``); the rating process fits the votes
with them as a population of its own, ``model_population_ratings`` (``with_named``), which the
leaderboard shows when asked to include them. A partial index lets the rating process ask
whether any named round exists without reading the matchups.

Revision ID: 0005
Revises: 0004
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0005"
down_revision: str | None = "0004"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.drop_constraint(op.f("matchups_mode_check"), "matchups", type_="check")
    op.create_check_constraint(
        op.f("matchups_mode_check"), "matchups", "mode IN ('blind', 'shadow', 'named')"
    )
    op.create_index(
        "matchups_named_idx",
        "matchups",
        ["id"],
        postgresql_where=sa.text("mode = 'named'"),
    )
    op.create_table(
        "model_population_ratings",
        sa.Column("population", sa.Text(), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rating_stderr", sa.Float(), nullable=False),
        sa.Column("ci_lower", sa.Float(), nullable=False),
        sa.Column("ci_upper", sa.Float(), nullable=False),
        sa.Column("component_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column(
            "computed_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.CheckConstraint(
            "population IN ('with_named')", name=op.f("model_population_ratings_population_check")
        ),
        sa.CheckConstraint(
            "ci_lower <= ci_upper", name=op.f("model_population_ratings_ci_order_check")
        ),
        sa.CheckConstraint(
            "rating_stderr >= 0", name=op.f("model_population_ratings_stderr_check")
        ),
        sa.CheckConstraint("games >= 0", name=op.f("model_population_ratings_games_check")),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name="model_population_ratings_model_id_fkey",
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("population", "model_id", name="model_population_ratings_pkey"),
    )


def downgrade() -> None:
    op.drop_table("model_population_ratings")
    op.drop_index("matchups_named_idx", table_name="matchups")
    op.execute("DELETE FROM matchups WHERE mode = 'named'")
    op.drop_constraint(op.f("matchups_mode_check"), "matchups", type_="check")
    op.create_check_constraint(
        op.f("matchups_mode_check"), "matchups", "mode IN ('blind', 'shadow')"
    )
