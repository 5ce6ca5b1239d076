"""keep the analytics summaries current with triggers on preferences and responses

The leaderboard and the insights dashboard must answer in milliseconds however many votes are
stored, so nothing they read scans ``matchups``, ``preferences`` or ``responses``. Row triggers
keep six small summary tables current in the writing transaction, for every writer:

* ``matchups_count_matchup``: matchups per ordered slot pair (``pair_outcome_stats``);
* ``preferences_roll_up_vote``: vote counts per ordered slot pair (``pair_outcome_stats``) and per
  UTC hour and model (``vote_activity``, each vote counted for both of its models);
* ``responses_roll_up_response``: error-free answers per model (``model_response_stats``) and
  their exact TTFT / duration distribution (``response_latency_values``, and per 100 ms in
  ``response_latency_buckets``) so that percentiles are exact without sorting every answer;
* both: the per-vote style deltas of voted matchups (``pair_style_stats``). A matchup's delta
  needs its vote and both answers, which arrive in separate transactions in either order; each
  trigger takes a transaction-scoped advisory lock on the matchup, so the three writers
  serialise and whichever comes last counts the delta, exactly once.

``arena_rebuild_analytics()`` recounts all six from scratch, and ``arena_rebuild_vote_stats()``
(migration 0002) now calls it too, so the one documented recount after a bulk load with disabled
triggers covers every derived counter. Deleting responses or matchups is not followed by the
triggers' style and vote counts (as with 0002): recount after such deletes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena_api.db.sql import sql, statements

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OUTCOMES = ("left_wins", "right_wins", "both_good", "both_bad", "skips")
_STYLE_SUMS = tuple(
    f"{feature}_{kind}"
    for feature in ("verbosity", "formatting", "ttft", "duration")
    for kind in ("sum", "squares")
)


def _model_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["models.id"], name=op.f(f"{table}_{column}_fkey"), ondelete="CASCADE"
    )


def _counter(name: str, type_: sa.types.TypeEngine[object] | None = None) -> sa.Column[object]:
    return sa.Column(name, type_ or sa.Integer(), server_default=sa.text("0"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "pair_outcome_stats",
        sa.Column("slot_a_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_b_model_id", sa.UUID(), nullable=False),
        _counter("matchups"),
        *(_counter(c) for c in _OUTCOMES),
        _model_fk("pair_outcome_stats", "slot_a_model_id"),
        _model_fk("pair_outcome_stats", "slot_b_model_id"),
        sa.PrimaryKeyConstraint(
            "slot_a_model_id", "slot_b_model_id", name=op.f("pair_outcome_stats_pkey")
        ),
    )
    op.create_table(
        "vote_activity",
        sa.Column("bucket_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        *(_counter(c) for c in _OUTCOMES),
        _model_fk("vote_activity", "model_id"),
        sa.PrimaryKeyConstraint("bucket_start", "model_id", name=op.f("vote_activity_pkey")),
    )
    op.create_table(
        "pair_style_stats",
        sa.Column("model_lo", sa.UUID(), nullable=False),
        sa.Column("model_hi", sa.UUID(), nullable=False),
        _counter("votes"),
        *(_counter(c, sa.Float()) for c in _STYLE_SUMS),
        sa.CheckConstraint(
            "model_lo < model_hi", name=op.f("pair_style_stats_canonical_order_check")
        ),
        _model_fk("pair_style_stats", "model_lo"),
        _model_fk("pair_style_stats", "model_hi"),
        sa.PrimaryKeyConstraint("model_lo", "model_hi", name=op.f("pair_style_stats_pkey")),
    )
    op.create_table(
        "model_response_stats",
        sa.Column("model_id", sa.UUID(), nullable=False),
        _counter("responses"),
        _counter("ttft_responses"),
        _counter("output_tokens", sa.BigInteger()),
        _counter("markdown_density", sa.Float()),
        _model_fk("model_response_stats", "model_id"),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_response_stats_pkey")),
    )
    for table, column in (
        ("response_latency_values", "value_ms"),
        ("response_latency_buckets", "bucket"),
    ):
        op.create_table(
            table,
            sa.Column("model_id", sa.UUID(), nullable=False),
            sa.Column("metric", sa.Text(), nullable=False),
            sa.Column(column, sa.Integer(), nullable=False),
            _counter("responses"),
            sa.CheckConstraint(
                "metric IN ('ttft', 'duration')", name=op.f(f"{table}_metric_check")
            ),
            _model_fk(table, "model_id"),
            sa.PrimaryKeyConstraint("model_id", "metric", column, name=op.f(f"{table}_pkey")),
        )
    for function in (
        "arena_count_style_deltas",
        "arena_count_matchup",
        "arena_roll_up_vote",
        "arena_roll_up_response",
    ):
        op.execute(sql(function, 1))
    for trigger in (
        "matchups_count_matchup",
        "preferences_roll_up_vote",
        "responses_roll_up_response",
    ):
        for statement in statements(trigger, 1):
            op.execute(statement)
    op.execute(sql("arena_rebuild_analytics", 1))
    op.execute(sql("arena_rebuild_vote_stats", 2))
    op.execute("SELECT arena_rebuild_analytics()")


def downgrade() -> None:
    op.execute(sql("arena_rebuild_vote_stats", 1))
    op.execute("DROP TRIGGER responses_roll_up_response ON responses")
    op.execute("DROP TRIGGER preferences_roll_up_vote ON preferences")
    op.execute("DROP TRIGGER matchups_count_matchup ON matchups")
    op.execute("DROP FUNCTION arena_rebuild_analytics()")
    op.execute("DROP FUNCTION arena_roll_up_response()")
    op.execute("DROP FUNCTION arena_roll_up_vote()")
    op.execute("DROP FUNCTION arena_count_matchup()")
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer)")
    for table in (
        "response_latency_buckets",
        "response_latency_values",
        "model_response_stats",
        "pair_style_stats",
        "vote_activity",
        "pair_outcome_stats",
    ):
        op.drop_table(table)
