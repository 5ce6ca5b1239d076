"""model lifecycle, reasons for a vote, and where imported rows came from

``models.status`` (``active``, ``paused``, ``archived``) replaces the ``enabled`` flag as what
an operator sets; ``enabled`` stays, computed from it (``status = 'active'``), so every reader
that asks "may this model be matched?" keeps one definition of the answer. A model that was
disabled becomes ``archived``: it has left the roster, and keeps its history.

``preferences.reasons`` holds the reason chips a voter ticked (``ARENA_VOTE_REASONS``; empty
when none). ``provider = 'imported'`` is a model known only from another arena's data.

An imported answer may come without timings: ``responses.latency_ms`` and
``stream_duration_ms`` may be NULL (as ``ttft_ms`` already may), and the summaries count only the
timings an answer has (``arena_rebuild_analytics`` version 4; the counting triggers already did).

``import_source`` and ``import_id`` on ``conversations`` and ``matchups`` say which system and
which of its records a row was imported from (both NULL for rows made here); the pair is unique,
so importing the same data twice adds nothing.

Revision ID: 0018
Revises: 0017
Create Date: 2026-12-05
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import ARRAY

from arena_api.db.sql import sql

revision: str = "0018"
down_revision: str | None = "0017"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_PROVIDERS = "'google', 'openai', 'ollama', 'vllm', 'host-proxy', 'mock'"
_IMPORTED = ("conversations", "matchups")
_TIMINGS = ("latency_ms", "stream_duration_ms")


def upgrade() -> None:
    op.add_column("models", sa.Column("status", sa.Text(), nullable=False, server_default="active"))
    op.execute("UPDATE models SET status = 'archived' WHERE NOT enabled")
    op.create_check_constraint(
        op.f("models_status_check"), "models", "status IN ('active', 'paused', 'archived')"
    )
    op.drop_column("models", "enabled")
    op.add_column(
        "models",
        sa.Column("enabled", sa.Boolean(), sa.Computed("status = 'active'", persisted=True)),
    )
    op.drop_constraint(op.f("models_provider_check"), "models", type_="check")
    op.create_check_constraint(
        op.f("models_provider_check"), "models", f"provider IN ({_PROVIDERS}, 'imported')"
    )

    op.add_column(
        "preferences",
        sa.Column(
            "reasons", ARRAY(sa.Text()), nullable=False, server_default=sa.text("'{}'::text[]")
        ),
    )
    for column in _TIMINGS:
        op.alter_column("responses", column, nullable=True)
    op.execute(sql("arena_rebuild_analytics", 4))
    for table in _IMPORTED:
        op.add_column(table, sa.Column("import_source", sa.Text(), nullable=True))
        op.add_column(table, sa.Column("import_id", sa.Text(), nullable=True))
        op.create_check_constraint(
            op.f(f"{table}_import_pair_check"),
            table,
            "(import_source IS NULL) = (import_id IS NULL)",
        )
        op.create_index(
            f"{table}_import_idx",
            table,
            ["import_source", "import_id"],
            unique=True,
            postgresql_where=sa.text("import_source IS NOT NULL"),
        )


def downgrade() -> None:
    for table in _IMPORTED:
        op.drop_index(f"{table}_import_idx", table_name=table)
        op.drop_constraint(op.f(f"{table}_import_pair_check"), table, type_="check")
        op.drop_column(table, "import_id")
        op.drop_column(table, "import_source")
    op.execute(sql("arena_rebuild_analytics", 3))
    for column in _TIMINGS:
        op.execute(f"UPDATE responses SET {column} = 0 WHERE {column} IS NULL")
        op.alter_column("responses", column, nullable=False)
    op.drop_column("preferences", "reasons")
    # Models known only from imported data have no provider the older schema allows.
    op.execute(
        "DO $$ BEGIN IF EXISTS (SELECT 1 FROM models WHERE provider = 'imported') THEN"
        " RAISE EXCEPTION 'imported models exist: this downgrade would have to delete them';"
        " END IF; END $$"
    )
    op.drop_constraint(op.f("models_provider_check"), "models", type_="check")
    op.create_check_constraint(
        op.f("models_provider_check"), "models", f"provider IN ({_PROVIDERS})"
    )
    op.drop_column("models", "enabled")
    op.add_column(
        "models", sa.Column("enabled", sa.Boolean(), nullable=False, server_default="true")
    )
    op.execute("UPDATE models SET enabled = (status = 'active')")
    op.drop_constraint(op.f("models_status_check"), "models", type_="check")
    op.drop_column("models", "status")
