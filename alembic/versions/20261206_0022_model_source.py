"""where each model came from: the roster file, the admin console, or an import

``arena serve`` seeds the roster file into ``models`` at every start and archives the models the
file no longer lists; a model added in the admin console is not the file's to archive, so each
model now says where it came from (``file``, ``console``, ``import``). The models known only from
an import (provider ``imported``) are ``import``; every other existing model came from the file.

Revision ID: 0022
Revises: 0021
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0022"
down_revision: str | None = "0021"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "models", sa.Column("source", sa.Text, nullable=False, server_default=sa.text("'file'"))
    )
    op.execute("UPDATE models SET source = 'import' WHERE provider = 'imported'")
    op.create_check_constraint(
        op.f("models_source_check"), "models", "source IN ('file', 'console', 'import')"
    )


def downgrade() -> None:
    op.drop_constraint(op.f("models_source_check"), "models", type_="check")
    op.drop_column("models", "source")
