"""whether an answer names its own model or vendor, checked when it is stored

``responses.names_itself`` (``arena_api.core.identity``): a vote on a round whose answer gave
its model away is not blind, and the rating process can leave it out. Answers stored before
this revision have NULL there (not checked).

Revision ID: 0013
Revises: 0012
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0013"
down_revision: str | None = "0012"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column("responses", sa.Column("names_itself", sa.Boolean(), nullable=True))


def downgrade() -> None:
    op.drop_column("responses", "names_itself")
