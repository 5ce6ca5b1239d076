"""vote summaries per slice of prompts, so every vote read can be cut by category or language

A *slice* is one of a round's categories (``coding``, ``math``, ...) or its language as
``language:<code>`` (``arena_prompt_slices``; the same rule as ``arena_api.core.categories``).
Six summaries count per slice what the summaries of revisions 0003 and 0007 count over
everything, so that every dashboard read can be cut to a slice at the same cost:

- ``category_pair_stats`` (matchups and outcomes per ordered pair and method; the leaderboard's
  records, the totals, head-to-head and slot records follow from it) and
  ``category_vote_activity`` (votes per UTC hour and model), from the votes;
- ``category_response_stats``, ``category_latency_values`` and ``category_latency_buckets``
  (answer counts, token and Markdown sums, exact latency distributions) and
  ``category_cost_daily`` (tokens and cost per UTC day and model), from the answers.

Triggers keep them: a vote and an answer count under their round's slices; a round counts a
matchup under each; and when a round's categories or language change (``arena db
backfill-categories`` classifies old rounds), its matchup, vote and answers move from the old
slices to the new ones, set-based per statement (a statement trigger over its transition
tables), so a backfill batch costs a few grouped statements rather than dozens per round. The
recount ``arena_rebuild_category_stats()`` is part of ``arena_rebuild_vote_stats()``.

The rating process fits one board per slice with enough votes; those boards live beside the
other populations in ``model_population_ratings`` and ``model_rating_history`` as
``category:<slice>``.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena_api.db.sql import sql, statements

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OUTCOMES = ("left_wins", "right_wins", "both_good", "both_bad", "skips")
# The slices' functions and triggers, in the order they are created (each at version 1).
_FUNCTIONS = (
    "arena_prompt_slices",
    "arena_count_category_votes",
    "arena_count_category_vote",
    "arena_count_category_answer",
    "arena_count_category_response",
    "arena_count_category_matchup",
    "arena_move_category_rounds",
    "arena_rebuild_category_stats",
)
_TRIGGERS = (
    "preferences_count_category_vote",
    "responses_count_category_answer",
    "matchups_count_category_matchup",
    "matchups_move_category_rounds",
)
# Revision 0010's recount of every summary (version 4) gains the slices' recount (version 5).
_REBUILD_VOTE_STATS = 5

_POPULATION_CHECKS = {
    "model_population_ratings": "population IN ('with_named', 'judge', 'all')",
    "model_rating_history": "population IN ('human', 'judge', 'all')",
}
_CATEGORY_POPULATION = "population LIKE 'category:%'"


def _summary(table: str, key: Sequence[str], models: Sequence[str]) -> list[object]:
    """Counters, ``method`` and the constraints of a slice summary keyed by ``key``."""
    return [
        *(
            sa.Column(c, sa.Integer(), nullable=False, server_default=sa.text("0"))
            for c in _OUTCOMES
        ),
        sa.Column("method", sa.Text(), nullable=False, server_default=sa.text("'human'")),
        *(
            sa.ForeignKeyConstraint(
                [c], ["models.id"], name=op.f(f"{table}_{c}_fkey"), ondelete="CASCADE"
            )
            for c in models
        ),
        sa.PrimaryKeyConstraint(*key, "method", name=op.f(f"{table}_pkey")),
        sa.CheckConstraint("method IN ('human', 'judge')", name=op.f(f"{table}_method_check")),
    ]


def _answer_tables() -> None:
    """The answer-side slice summaries: revision 0003's and 0007's tables with a ``category``,
    in the column order of ``arena_api.db.tables``."""

    def table(name: str, key: Sequence[str], *columns: object) -> None:
        """``name`` keyed by ``key`` (``category``, ..., ``model_id``, ...)."""
        first = [
            sa.Column(c, {"day": sa.Date()}.get(c, sa.Text()), nullable=False)
            for c in key[: key.index("model_id")]
        ]
        op.create_table(
            name,
            *first,
            sa.Column("model_id", sa.UUID(), nullable=False),
            *columns,
            sa.ForeignKeyConstraint(
                ["model_id"], ["models.id"], name=op.f(f"{name}_model_id_fkey"), ondelete="CASCADE"
            ),
            sa.PrimaryKeyConstraint(*key, name=op.f(f"{name}_pkey")),
        )

    def counted(*names: str, kind: type[sa.types.TypeEngine[object]] = sa.Integer) -> list[object]:
        return [sa.Column(n, kind(), nullable=False, server_default=sa.text("0")) for n in names]

    table(
        "category_response_stats",
        ("category", "model_id"),
        *counted("responses", "ttft_responses"),
        *counted("output_tokens", kind=sa.BigInteger),
        *counted("markdown_density", kind=sa.Float),
    )
    for name, column in (
        ("category_latency_values", "value_ms"),
        ("category_latency_buckets", "bucket"),
    ):
        table(
            name,
            ("category", "model_id", "metric", column),
            sa.Column("metric", sa.Text(), nullable=False),
            sa.Column(column, sa.Integer(), nullable=False),
            *counted("responses"),
            sa.CheckConstraint("metric IN ('ttft', 'duration')", name=op.f(f"{name}_metric_check")),
        )
    table(
        "category_cost_daily",
        ("category", "day", "model_id"),
        *counted("responses", "priced_responses", "estimated_responses"),
        *counted("input_tokens", "output_tokens", kind=sa.BigInteger),
        sa.Column("cost_usd", sa.Numeric(20, 9), nullable=False, server_default=sa.text("0")),
    )


def upgrade() -> None:
    op.create_table(
        "category_pair_stats",
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("slot_a_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_b_model_id", sa.UUID(), nullable=False),
        sa.Column("matchups", sa.Integer(), nullable=False, server_default=sa.text("0")),
        *_summary(
            "category_pair_stats",
            ("category", "slot_a_model_id", "slot_b_model_id"),
            ("slot_a_model_id", "slot_b_model_id"),
        ),
    )
    op.create_table(
        "category_vote_activity",
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("bucket_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        *_summary(
            "category_vote_activity", ("category", "bucket_start", "model_id"), ("model_id",)
        ),
    )
    _answer_tables()
    for function in _FUNCTIONS:
        op.execute(sql(function, 1))
    op.execute(sql("arena_rebuild_vote_stats", _REBUILD_VOTE_STATS))
    for trigger in _TRIGGERS:
        for statement in statements(trigger, 1):
            op.execute(statement)
    for table, check in _POPULATION_CHECKS.items():
        op.drop_constraint(op.f(f"{table}_population_check"), table, type_="check")
        op.create_check_constraint(
            op.f(f"{table}_population_check"), table, f"{check} OR {_CATEGORY_POPULATION}"
        )
    op.execute("SELECT arena_rebuild_category_stats()")


def downgrade() -> None:
    for table, check in _POPULATION_CHECKS.items():
        op.execute(f"DELETE FROM {table} WHERE {_CATEGORY_POPULATION}")
        op.drop_constraint(op.f(f"{table}_population_check"), table, type_="check")
        op.create_check_constraint(op.f(f"{table}_population_check"), table, check)
    op.execute("DROP TRIGGER matchups_move_category_rounds ON matchups")
    op.execute("DROP TRIGGER matchups_count_category_matchup ON matchups")
    op.execute("DROP TRIGGER preferences_count_category_vote ON preferences")
    op.execute("DROP TRIGGER responses_count_category_answer ON responses")
    op.execute(sql("arena_rebuild_vote_stats", _REBUILD_VOTE_STATS - 1))
    for function in (
        "arena_rebuild_category_stats()",
        "arena_move_category_rounds()",
        "arena_count_category_matchup()",
        "arena_count_category_vote()",
        "arena_count_category_response()",
        "arena_count_category_answer(responses, text[], integer)",
        "arena_count_category_votes(preferences, uuid, uuid, text[], integer)",
        "arena_prompt_slices(text[], text)",
    ):
        op.execute(f"DROP FUNCTION {function}")
    for table in (
        "category_cost_daily",
        "category_latency_buckets",
        "category_latency_values",
        "category_response_stats",
    ):
        op.drop_table(table)
    op.drop_table("category_vote_activity")
    op.drop_table("category_pair_stats")
