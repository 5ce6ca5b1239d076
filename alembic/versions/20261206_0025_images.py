"""images in prompts: content-addressed image bytes, the turns that show them, vision models

An image a person attaches to a prompt is stored once under the SHA-256 of its re-encoded bytes
(``images``) and referenced by each turn that shows it (``turn_images``, in the order attached).
A round keeps how many images its prompt had (``matchups.image_count``) after text retention
clears them. ``models.vision`` marks the models that read images: only those answer a round
with images.

Revision ID: 0025
Revises: 0024
Create Date: 2026-12-06
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects.postgresql import UUID

revision: str = "0025"
down_revision: str | None = "0024"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.add_column(
        "models", sa.Column("vision", sa.Boolean, nullable=False, server_default=sa.false())
    )
    op.add_column(
        "matchups",
        sa.Column("image_count", sa.SmallInteger, nullable=False, server_default=sa.text("0")),
    )
    op.create_check_constraint(op.f("matchups_image_count_check"), "matchups", "image_count >= 0")
    op.create_table(
        "images",
        sa.Column("sha256", sa.Text, primary_key=True),
        sa.Column("media_type", sa.Text, nullable=False),
        sa.Column("width", sa.Integer, nullable=False),
        sa.Column("height", sa.Integer, nullable=False),
        sa.Column("size", sa.Integer, nullable=False),
        sa.Column("data", sa.LargeBinary, nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            nullable=False,
            server_default=sa.text("now()"),
        ),
        sa.CheckConstraint("sha256 ~ '^[0-9a-f]{64}$'", name=op.f("images_sha256_check")),
        sa.CheckConstraint(
            "media_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp')",
            name=op.f("images_media_type_check"),
        ),
        sa.CheckConstraint(
            "width > 0 AND height > 0 AND size = octet_length(data)",
            name=op.f("images_shape_check"),
        ),
    )
    # The bytes are compressed already: PostgreSQL need not try again.
    op.execute("ALTER TABLE images ALTER COLUMN data SET STORAGE EXTERNAL")
    op.create_table(
        "turn_images",
        sa.Column(
            "turn_id",
            UUID(as_uuid=True),
            sa.ForeignKey("turns.id", ondelete="CASCADE"),
            primary_key=True,
        ),
        sa.Column("position", sa.SmallInteger, primary_key=True),
        sa.Column("sha256", sa.Text, sa.ForeignKey("images.sha256"), nullable=False),
        sa.CheckConstraint("position >= 0", name=op.f("turn_images_position_check")),
    )
    op.create_index("turn_images_sha256_idx", "turn_images", ["sha256"])


def downgrade() -> None:
    op.drop_table("turn_images")
    op.drop_table("images")
    op.drop_constraint(op.f("matchups_image_count_check"), "matchups", type_="check")
    op.drop_column("matchups", "image_count")
    op.drop_column("models", "vision")
