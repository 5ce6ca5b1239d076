"""eval suite runs (one row per run, one per prompt it has judged), and a rating history per
population of votes

A run walks its suite's prompts one after another; each prompt's round and verdict land in
``suite_results`` (one row per prompt index, so a resumed run never repeats one) and the run's
progress, status and cost in ``suite_runs``. A run that was ``running`` when its server
stopped is marked ``interrupted`` at the next start and can be resumed.

``model_rating_history`` gains ``population`` (``human``, the people's board as before, or
``judge`` / ``all``), so the history of every population's board can be read.

Revision ID: 0011
Revises: 0010
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0011"
down_revision: str | None = "0010"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "model_rating_history",
        sa.Column("population", sa.Text(), server_default=sa.text("'human'"), nullable=False),
    )
    op.create_check_constraint(
        op.f("model_rating_history_population_check"),
        "model_rating_history",
        "population IN ('human', 'judge', 'all')",
    )
    op.drop_constraint(op.f("model_rating_history_pkey"), "model_rating_history", type_="primary")
    op.create_primary_key(
        op.f("model_rating_history_pkey"),
        "model_rating_history",
        ["population", "model_id", "computed_at"],
    )
    op.create_table(
        "suite_runs",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("suite", sa.Text(), nullable=False),
        sa.Column("status", sa.Text(), nullable=False),
        sa.Column("total", sa.Integer(), nullable=False),
        sa.Column("completed", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("prompts", postgresql.JSONB(), nullable=False),
        sa.Column("models", postgresql.JSONB(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("finished_at", sa.DateTime(timezone=True), nullable=True),
        sa.CheckConstraint(
            "status IN ('running', 'done', 'failed', 'interrupted')",
            name=op.f("suite_runs_status_check"),
        ),
        sa.CheckConstraint(
            "completed >= 0 AND completed <= total", name=op.f("suite_runs_progress_check")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("suite_runs_pkey")),
    )
    op.create_index("suite_runs_suite_idx", "suite_runs", ["suite", "created_at"])
    op.create_table(
        "suite_results",
        sa.Column("run_id", sa.UUID(), nullable=False),
        sa.Column("prompt_index", sa.Integer(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=True),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("winner_model_id", sa.UUID(), nullable=True),
        sa.Column("cost_usd", sa.Numeric(18, 9), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.CheckConstraint(
            "outcome IN ('A', 'B', 'tie', 'both_bad', 'unparseable', 'failed')",
            name=op.f("suite_results_outcome_check"),
        ),
        sa.ForeignKeyConstraint(
            ["run_id"],
            ["suite_runs.id"],
            name=op.f("suite_results_run_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name=op.f("suite_results_matchup_id_fkey"),
            ondelete="SET NULL",
        ),
        sa.ForeignKeyConstraint(
            ["winner_model_id"],
            ["models.id"],
            name=op.f("suite_results_winner_model_id_fkey"),
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("run_id", "prompt_index", name=op.f("suite_results_pkey")),
    )


def downgrade() -> None:
    op.execute("DELETE FROM model_rating_history WHERE population <> 'human'")
    op.drop_constraint(op.f("model_rating_history_pkey"), "model_rating_history", type_="primary")
    op.create_primary_key(
        op.f("model_rating_history_pkey"), "model_rating_history", ["model_id", "computed_at"]
    )
    op.drop_constraint(
        op.f("model_rating_history_population_check"), "model_rating_history", type_="check"
    )
    op.drop_column("model_rating_history", "population")
    op.drop_table("suite_results")
    op.drop_index("suite_runs_suite_idx", table_name="suite_runs")
    op.drop_table("suite_runs")
