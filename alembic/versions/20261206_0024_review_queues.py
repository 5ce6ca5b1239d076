"""expert review queues: rounds reviewed blind by named reviewers, k reviews an item

``review_queues`` (a name, how many reviews each item needs, where its rounds came from, how
many of its rounds are still being played when it was made from a list of prompts),
``review_queue_reviewers`` (who reviews it), ``review_items`` (its rounds, in order) and
``review_verdicts`` (one per reviewer and item: the vote, reasons, a comment). The reviewers'
verdicts are a population of their own, fitted by the rating process: ``reviewer`` joins the
populations ``model_population_ratings`` (and, for the check's sake, the history) may hold.

Revision ID: 0024
Revises: 0023
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

revision: str = "0024"
down_revision: str | None = "0023"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def _uuid(name: str, **kw: object) -> sa.Column[object]:
    return sa.Column(name, UUID(as_uuid=True), **kw)  # type: ignore[arg-type]


def _fk(name: str, target: str, table: str) -> sa.Column[object]:
    return sa.Column(
        name,
        UUID(as_uuid=True),
        sa.ForeignKey(target, ondelete="CASCADE", name=op.f(f"{table}_{name}_fkey")),
        nullable=False,
    )


_BOARDS = "model_population_ratings"
_HISTORY = "model_rating_history"
_BOARD_CHECKS = (
    "population IN ('with_named', 'judge', 'all', 'unfiltered') OR population LIKE 'category:%'",
    "population IN ('with_named', 'judge', 'all', 'unfiltered', 'reviewer') "
    "OR population LIKE 'category:%'",
)
_HISTORY_CHECKS = (
    "population IN ('human', 'judge', 'all') OR population LIKE 'category:%'",
    "population IN ('human', 'judge', 'all', 'reviewer') OR population LIKE 'category:%'",
)


def _checks(which: int) -> None:
    for table, checks in ((_BOARDS, _BOARD_CHECKS), (_HISTORY, _HISTORY_CHECKS)):
        op.drop_constraint(op.f(f"{table}_population_check"), table, type_="check")
        op.create_check_constraint(op.f(f"{table}_population_check"), table, checks[which])


def upgrade() -> None:
    _checks(1)
    op.create_table(
        "review_queues",
        _uuid("id", primary_key=True),
        sa.Column("name", sa.Text, nullable=False),
        sa.Column("reviews_per_item", sa.Integer, nullable=False),
        sa.Column("source", JSONB, nullable=False),
        sa.Column("pending", sa.Integer, nullable=False, server_default=sa.text("0")),
        _uuid("created_by", nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.ForeignKeyConstraint(
            ["created_by"],
            ["users.id"],
            ondelete="SET NULL",
            name=op.f("review_queues_created_by_fkey"),
        ),
        sa.CheckConstraint(
            "reviews_per_item BETWEEN 1 AND 20", name=op.f("review_queues_reviews_per_item_check")
        ),
        sa.CheckConstraint("pending >= 0", name=op.f("review_queues_pending_check")),
    )
    op.create_table(
        "review_queue_reviewers",
        _fk("queue_id", "review_queues.id", "review_queue_reviewers"),
        _fk("user_id", "users.id", "review_queue_reviewers"),
        sa.PrimaryKeyConstraint("queue_id", "user_id", name=op.f("review_queue_reviewers_pkey")),
    )
    op.create_table(
        "review_items",
        _uuid("id", primary_key=True),
        _fk("queue_id", "review_queues.id", "review_items"),
        sa.Column("position", sa.Integer, nullable=False),
        _fk("matchup_id", "matchups.id", "review_items"),
        sa.UniqueConstraint(
            "queue_id", "matchup_id", name=op.f("review_items_queue_id_matchup_id_key")
        ),
        sa.UniqueConstraint(
            "queue_id", "position", name=op.f("review_items_queue_id_position_key")
        ),
    )
    op.create_table(
        "review_verdicts",
        _uuid("id", primary_key=True),
        _fk("item_id", "review_items.id", "review_verdicts"),
        _fk("reviewer_id", "users.id", "review_verdicts"),
        sa.Column("vote", sa.Text, nullable=False),
        sa.Column(
            "reasons", ARRAY(sa.Text), nullable=False, server_default=sa.text("'{}'::text[]")
        ),
        sa.Column("comment", sa.Text, nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), nullable=False, server_default=sa.func.now()
        ),
        sa.UniqueConstraint(
            "item_id", "reviewer_id", name=op.f("review_verdicts_item_id_reviewer_id_key")
        ),
        sa.CheckConstraint(
            "vote IN ('left', 'right', 'both_good', 'both_bad', 'skip')",
            name=op.f("review_verdicts_vote_check"),
        ),
    )


def downgrade() -> None:
    for table in (_BOARDS, _HISTORY):
        op.execute(f"DELETE FROM {table} WHERE population = 'reviewer'")
    _checks(0)
    op.drop_table("review_verdicts")
    op.drop_table("review_items")
    op.drop_table("review_queue_reviewers")
    op.drop_table("review_queues")
