"""what answers cost: model prices, per-answer input tokens and cost, and a daily cost summary

Prices come from the roster (``models.yaml``), in US dollars per million tokens. Each answer
stores its input tokens beside its output tokens (each marked ``provider`` or ``estimated``)
and its cost, computed when it is stored from the prices of that moment, so a later price
change never rewrites history. ``model_cost_daily`` sums answers per UTC day and model; a row
trigger keeps it current (like the other analytics summaries), so the cost dashboard never
scans ``responses``. ``arena_rebuild_cost()`` recounts it from scratch.

Answers stored before this revision keep their output tokens; their input tokens are unknown
(0, ``estimated``) and their cost is unknown (NULL).

Revision ID: 0007
Revises: 0006
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena_api.db.sql import sql, statements

revision: str = "0007"
down_revision: str | None = "0006"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("models", sa.Column("input_price_per_mtok", sa.Numeric(14, 6), nullable=True))
    op.add_column("models", sa.Column("output_price_per_mtok", sa.Numeric(14, 6), nullable=True))
    op.create_check_constraint(
        op.f("models_prices_paired_check"),
        "models",
        "(input_price_per_mtok IS NULL) = (output_price_per_mtok IS NULL)",
    )
    op.create_check_constraint(
        op.f("models_prices_positive_check"),
        "models",
        "input_price_per_mtok >= 0 AND output_price_per_mtok >= 0",
    )
    op.add_column(
        "responses",
        sa.Column("input_token_count", sa.Integer(), server_default=sa.text("0"), nullable=False),
    )
    op.add_column(
        "responses",
        sa.Column(
            "input_token_source",
            sa.Text(),
            server_default=sa.text("'estimated'"),
            nullable=False,
        ),
    )
    op.add_column("responses", sa.Column("cost_usd", sa.Numeric(18, 9), nullable=True))
    op.create_check_constraint(
        op.f("responses_input_tokens_check"), "responses", "input_token_count >= 0"
    )
    op.create_check_constraint(
        op.f("responses_input_token_source_check"),
        "responses",
        "input_token_source IN ('provider', 'estimated')",
    )
    op.create_check_constraint(op.f("responses_cost_check"), "responses", "cost_usd >= 0")
    op.create_table(
        "model_cost_daily",
        sa.Column("day", sa.Date(), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        *(
            sa.Column(name, kind, server_default=sa.text("0"), nullable=False)
            for name, kind in (
                ("responses", sa.Integer()),
                ("priced_responses", sa.Integer()),
                ("estimated_responses", sa.Integer()),
                ("input_tokens", sa.BigInteger()),
                ("output_tokens", sa.BigInteger()),
                ("cost_usd", sa.Numeric(20, 9)),
            )
        ),
        sa.ForeignKeyConstraint(
            ["model_id"], ["models.id"], name="model_cost_daily_model_id_fkey", ondelete="CASCADE"
        ),
        sa.PrimaryKeyConstraint("day", "model_id", name="model_cost_daily_pkey"),
    )
    op.execute(sql("arena_roll_up_cost", 1))
    op.execute(sql("arena_rebuild_cost", 1))
    for statement in statements("responses_roll_up_cost", 1):
        op.execute(statement)
    op.execute("SELECT arena_rebuild_cost()")


def downgrade() -> None:
    op.execute("DROP TRIGGER responses_roll_up_cost ON responses")
    op.execute("DROP FUNCTION arena_rebuild_cost()")
    op.execute("DROP FUNCTION arena_roll_up_cost()")
    op.drop_table("model_cost_daily")
    for name in ("cost", "input_token_source", "input_tokens"):
        op.drop_constraint(op.f(f"responses_{name}_check"), "responses", type_="check")
    for column in ("cost_usd", "input_token_source", "input_token_count"):
        op.drop_column("responses", column)
    for name in ("prices_positive", "prices_paired"):
        op.drop_constraint(op.f(f"models_{name}_check"), "models", type_="check")
    for column in ("output_price_per_mtok", "input_price_per_mtok"):
        op.drop_column("models", column)
