"""the rating process's filters before the fit: identity leaks and duplicate prompts

``vote_exclusions`` holds each vote the latest rating pass left out and why: ``identity_leak``
(an answer of its round named its own model, family or vendor; ``detail`` says which slots) or
``duplicate_prompt`` (its prompt took more than ``RATING_DUPLICATE_CAP`` of the votes and this
vote was not among the capped sample kept; ``detail`` is the prompt key). ``rating_passes``
counts both per pass. The ``unfiltered`` population is the blind board with those votes kept,
for a leaderboard that shows what the filters changed. A partial index finds the answers that
named themselves without reading the others.

Revision ID: 0015
Revises: 0014
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0015"
down_revision: str | None = "0014"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_POPULATION = "model_population_ratings_population_check"
_BEFORE = "population IN ('with_named', 'judge', 'all') OR population LIKE 'category:%'"
_AFTER = (
    "population IN ('with_named', 'judge', 'all', 'unfiltered') OR population LIKE 'category:%'"
)


def upgrade() -> None:
    op.create_index(
        "responses_names_itself_idx",
        "responses",
        ["matchup_id"],
        postgresql_where=sa.text("names_itself"),
    )
    op.create_table(
        "vote_exclusions",
        sa.Column("preference_id", sa.UUID(), nullable=False),
        sa.Column("reason", sa.Text(), nullable=False),
        sa.Column("detail", sa.Text(), nullable=True),
        sa.Column(
            "excluded_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["preference_id"],
            ["preferences.id"],
            name=op.f("vote_exclusions_preference_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("preference_id", name=op.f("vote_exclusions_pkey")),
        sa.CheckConstraint(
            "reason IN ('identity_leak', 'duplicate_prompt')",
            name=op.f("vote_exclusions_reason_check"),
        ),
    )
    for column in ("votes_identity_leaks", "votes_duplicates"):
        op.add_column(
            "rating_passes",
            sa.Column(column, sa.Integer(), server_default=sa.text("0"), nullable=False),
        )
    op.drop_constraint(op.f(_POPULATION), "model_population_ratings", type_="check")
    op.create_check_constraint(op.f(_POPULATION), "model_population_ratings", _AFTER)


def downgrade() -> None:
    op.execute("DELETE FROM model_population_ratings WHERE population = 'unfiltered'")
    op.drop_constraint(op.f(_POPULATION), "model_population_ratings", type_="check")
    op.create_check_constraint(op.f(_POPULATION), "model_population_ratings", _BEFORE)
    for column in ("votes_duplicates", "votes_identity_leaks"):
        op.drop_column("rating_passes", column)
    op.drop_table("vote_exclusions")
    op.drop_index("responses_names_itself_idx", table_name="responses")
