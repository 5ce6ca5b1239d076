"""vote summaries per method, so every read can ask for the human, the judge or all votes

Revision 0008 kept judge votes out of the summaries altogether. Now each vote summary is kept
per ``method`` (``human`` or ``judge``): ``model_vote_stats``, ``pair_vote_stats``,
``pair_outcome_stats``, ``vote_activity`` and ``pair_style_stats`` gain the column in their
keys, the triggers count every vote under its own method, and the readers sum the methods of
the population they are asked for (``?votes=human|judge|all``, human by default). The count of
matchups per pair (``pair_outcome_stats.matchups``) does not depend on votes: it stays on the
``human`` rows. ``model_population_ratings`` gains the ``judge`` and ``all`` populations.

The trigger and recount functions are replaced whole (their text, with the method added), the
0008 ``WHEN`` triggers by plain ones again, and everything is recounted once.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

from arena_api.db.sql import sql, statements

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> its key before this revision
_KEYED = {
    "model_vote_stats": ("model_id",),
    "pair_vote_stats": ("model_lo", "model_hi"),
    "pair_outcome_stats": ("slot_a_model_id", "slot_b_model_id"),
    "vote_activity": ("bucket_start", "model_id"),
    "pair_style_stats": ("model_lo", "model_hi"),
}
# The vote triggers on preferences: 0008's pairs (human votes only) become plain ones again.
_VOTE_TRIGGERS = ("preferences_count_vote", "preferences_roll_up_vote")
# The functions replaced whole: (name, version 0008 left, this revision's version).
_TRIGGER_FUNCTIONS = (
    ("arena_count_vote", 1, 2),
    ("arena_roll_up_vote", 1, 2),
    ("arena_count_matchup", 1, 2),
)


def upgrade() -> None:
    for table, key in _KEYED.items():
        op.add_column(
            table, sa.Column("method", sa.Text(), server_default=sa.text("'human'"), nullable=False)
        )
        op.create_check_constraint(
            op.f(f"{table}_method_check"), table, "method IN ('human', 'judge')"
        )
        op.drop_constraint(op.f(f"{table}_pkey"), table, type_="primary")
        op.create_primary_key(op.f(f"{table}_pkey"), table, [*key, "method"])
    op.drop_constraint(
        op.f("model_population_ratings_population_check"), "model_population_ratings", "check"
    )
    op.create_check_constraint(
        op.f("model_population_ratings_population_check"),
        "model_population_ratings",
        "population IN ('with_named', 'judge', 'all')",
    )
    for trigger in _VOTE_TRIGGERS:
        for event in ("insert", "delete"):
            op.execute(f"DROP TRIGGER {trigger}_{event} ON preferences")
    op.execute(sql("arena_count_style_deltas", 2))
    for function, _, after in _TRIGGER_FUNCTIONS:
        op.execute(sql(function, after))
    op.execute(sql("arena_roll_up_response", 3))
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer)")
    op.execute(sql("arena_rebuild_analytics", 3))
    op.execute(sql("arena_rebuild_vote_stats", 4))
    for trigger in _VOTE_TRIGGERS:
        for statement in statements(trigger, 3):
            op.execute(statement)
    op.execute("SELECT arena_rebuild_vote_stats()")
    # Lets the rating process ask whether any judge vote exists without reading the rest.
    op.create_index(
        "preferences_judge_idx",
        "preferences",
        ["id"],
        postgresql_where=sa.text("method = 'judge'"),
    )


def downgrade() -> None:
    op.drop_index("preferences_judge_idx", table_name="preferences")
    for trigger in _VOTE_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger} ON preferences")
    op.execute("DELETE FROM model_population_ratings WHERE population IN ('judge', 'all')")
    op.drop_constraint(
        op.f("model_population_ratings_population_check"), "model_population_ratings", "check"
    )
    op.create_check_constraint(
        op.f("model_population_ratings_population_check"),
        "model_population_ratings",
        "population IN ('with_named')",
    )
    op.execute(sql("arena_roll_up_response", 2))
    op.execute(sql("arena_count_style_deltas", 1))
    for function, before, _ in _TRIGGER_FUNCTIONS:
        op.execute(sql(function, before))
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer, text)")
    for table, key in _KEYED.items():
        op.execute(f"DELETE FROM {table} WHERE method <> 'human'")
        op.drop_constraint(op.f(f"{table}_pkey"), table, type_="primary")
        op.create_primary_key(op.f(f"{table}_pkey"), table, list(key))
        op.drop_constraint(op.f(f"{table}_method_check"), table, type_="check")
        op.drop_column(table, "method")
    op.execute(sql("arena_rebuild_analytics", 2))
    op.execute(sql("arena_rebuild_vote_stats", 3))
    for trigger in _VOTE_TRIGGERS:
        for statement in statements(trigger, 2):
            op.execute(statement)
