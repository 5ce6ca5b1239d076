"""judge votes: who cast a vote, and every verdict a judge model gave

``preferences.method`` says who voted: a person (``human``) or a judge model (``judge``); both
go through the one-vote-per-matchup constraint, so a judge and a person racing on a matchup end
with exactly one vote. The summaries the leaderboard, the matchmaker and the dashboard read
count human votes only: the vote triggers fire ``WHEN`` the vote is a human's, and the recount
functions read the human votes (their bodies are rewritten in place, ``preferences p`` becoming
the human votes). Judge votes stay apart until a population that includes them is asked for.

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

revision: str = "0008"
down_revision: str | None = "0007"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_HUMAN_VOTES = "(SELECT * FROM preferences WHERE method = 'human') p"
_RECOUNTS = ("arena_rebuild_vote_stats", "arena_rebuild_analytics")
# (trigger, function) on preferences, per-row, after insert or delete.
_VOTE_TRIGGERS = (
    ("preferences_count_vote", "arena_count_vote"),
    ("preferences_roll_up_vote", "arena_roll_up_vote"),
)
# The answer trigger counts a matchup's style deltas when its vote came first.
_EARLIER_VOTE = "FROM preferences WHERE matchup_id = rec.matchup_id AND vote <> 'skip'"


def _rewrite(function: str, old: str, new: str) -> None:
    """Replace ``old`` by ``new`` in a function's stored definition."""
    definition = (
        op.get_bind()
        .execute(sa.text("SELECT pg_get_functiondef(CAST(:f AS regproc))"), {"f": function})
        .scalar_one()
    )
    assert old in definition, (function, old)
    op.execute(definition.replace(old, new))


def upgrade() -> None:
    op.add_column(
        "preferences",
        sa.Column("method", sa.Text(), server_default=sa.text("'human'"), nullable=False),
    )
    op.create_check_constraint(
        op.f("preferences_method_check"), "preferences", "method IN ('human', 'judge')"
    )
    for trigger, function in _VOTE_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger} ON preferences")
        for event, row in (("INSERT", "NEW"), ("DELETE", "OLD")):
            op.execute(
                f"CREATE TRIGGER {trigger}_{event.lower()} AFTER {event} ON preferences "
                f"FOR EACH ROW WHEN ({row}.method = 'human') EXECUTE FUNCTION {function}()"
            )
    for function in _RECOUNTS:
        _rewrite(function, "preferences p", _HUMAN_VOTES)
    _rewrite("arena_roll_up_response", _EARLIER_VOTE, _EARLIER_VOTE + " AND method = 'human'")
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
    _rewrite("arena_roll_up_response", _EARLIER_VOTE + " AND method = 'human'", _EARLIER_VOTE)
    for function in _RECOUNTS:
        _rewrite(function, _HUMAN_VOTES, "preferences p")
    for trigger, function in _VOTE_TRIGGERS:
        for event in ("insert", "delete"):
            op.execute(f"DROP TRIGGER {trigger}_{event} ON preferences")
        op.execute(
            f"CREATE TRIGGER {trigger} AFTER INSERT OR DELETE ON preferences "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()"
        )
    op.drop_constraint(op.f("preferences_method_check"), "preferences", type_="check")
    op.drop_column("preferences", "method")
