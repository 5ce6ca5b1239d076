"""judge votes: who cast a vote, and every verdict a judge model gave

``preferences.method`` says who voted: a person (``human``) or a judge model (``judge``); both
go through the one-vote-per-matchup constraint, so a judge and a person racing on a matchup end
with exactly one vote. The summaries the leaderboard, the matchmaker and the dashboard read
count human votes only: the vote triggers fire ``WHEN`` the vote is a human's, and the recount
functions read the human votes (their next versions in ``arena_api/db/sql/``, where ``preferences
p`` becomes the human votes). Judge votes stay apart until a population that includes them is
asked for.

``judge_verdicts`` keeps every judgement (recorded as the vote or not): the judge, each
reading (the order shown, the text, its outcome), the combined outcome, the reasoning, tokens
and cost.

Revision ID: 0008
Revises: 0007
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

from arena_api.db.sql import sql, statements

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# The vote triggers on preferences, each replaced by a pair that fires for human votes only.
_VOTE_TRIGGERS = ("preferences_count_vote", "preferences_roll_up_vote")
# The functions whose text this revision changes (version before, version after).
_REWRITTEN = (
    ("arena_rebuild_vote_stats", 2, 3),
    ("arena_rebuild_analytics", 1, 2),
    ("arena_roll_up_response", 1, 2),
)


def upgrade() -> None:
    op.add_column(
        "preferences",
        sa.Column("method", sa.Text(), server_default=sa.text("'human'"), nullable=False),
    )
    op.create_check_constraint(
        op.f("preferences_method_check"), "preferences", "method IN ('human', 'judge')"
    )
    for trigger in _VOTE_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger} ON preferences")
        for statement in statements(trigger, 2):
            op.execute(statement)
    for function, _, after in _REWRITTEN:
        op.execute(sql(function, after))
    op.create_table(
        "judge_verdicts",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column("source", sa.Text(), server_default=sa.text("'request'"), nullable=False),
        sa.Column("judge_name", sa.Text(), nullable=False),
        sa.Column("judge_provider", sa.Text(), nullable=False),
        sa.Column("judge_model_id", sa.Text(), nullable=False),
        sa.Column("outcome", sa.Text(), nullable=False),
        sa.Column("vote", sa.Text(), nullable=True),
        sa.Column("recorded", sa.Boolean(), server_default=sa.text("false"), nullable=False),
        sa.Column("swapped", sa.Boolean(), nullable=False),
        sa.Column(
            "readings",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column("reasoning", sa.Text(), server_default=sa.text("''"), nullable=False),
        sa.Column("input_tokens", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("output_tokens", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("cost_usd", sa.Numeric(18, 9), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.CheckConstraint(
            "source IN ('request', 'autojudge', 'suite')", name=op.f("judge_verdicts_source_check")
        ),
        sa.CheckConstraint(
            "outcome IN ('A', 'B', 'tie', 'both_bad', 'unparseable', 'failed')",
            name=op.f("judge_verdicts_outcome_check"),
        ),
        sa.CheckConstraint(
            "vote IS NULL OR vote IN ('left', 'right', 'both_good', 'both_bad')",
            name=op.f("judge_verdicts_vote_check"),
        ),
        sa.CheckConstraint(
            "NOT recorded OR vote IS NOT NULL", name=op.f("judge_verdicts_recorded_check")
        ),
        sa.CheckConstraint(
            "input_tokens >= 0 AND output_tokens >= 0", name=op.f("judge_verdicts_tokens_check")
        ),
        sa.CheckConstraint("cost_usd >= 0", name=op.f("judge_verdicts_cost_check")),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name=op.f("judge_verdicts_matchup_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("judge_verdicts_pkey")),
    )
    op.create_index("judge_verdicts_matchup_id_idx", "judge_verdicts", ["matchup_id"])


def downgrade() -> None:
    op.drop_index("judge_verdicts_matchup_id_idx", table_name="judge_verdicts")
    op.drop_table("judge_verdicts")
    # While the triggers still skip them: judge votes were never counted, so none is uncounted.
    op.execute("DELETE FROM preferences WHERE method <> 'human'")
    for function, before, _ in reversed(_REWRITTEN):
        op.execute(sql(function, before))
    for trigger in _VOTE_TRIGGERS:
        for event in ("insert", "delete"):
            op.execute(f"DROP TRIGGER {trigger}_{event} ON preferences")
        for statement in statements(trigger, 1):
            op.execute(statement)
    op.drop_constraint(op.f("preferences_method_check"), "preferences", type_="check")
    op.drop_column("preferences", "method")
