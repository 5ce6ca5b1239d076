"""remember where each external chat (Open WebUI) stands in the arena

An OpenAI-compatible chat UI votes and continues by typing into the same chat, so the arena keeps,
per chat, the latest votable matchup it was shown and the conversation a decisive vote continues.
A restart loses nothing. The chat id is the capability to vote in that chat: only its SHA-256 is
stored (``chat_key``), as only the vote token's hash is.

Revision ID: 0004
Revises: 0003
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0004"
down_revision: str | None = "0003"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "external_chats",
        sa.Column("chat_key", sa.Text(), nullable=False),
        sa.Column("session_id", sa.Text(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column("conversation_id", sa.UUID(), nullable=True),
        sa.Column("vote_message", sa.Text(), nullable=True),
        sa.Column(
            "created_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.Column(
            "updated_at", sa.DateTime(timezone=True), server_default=sa.func.now(), nullable=False
        ),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name="external_chats_matchup_id_fkey",
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name="external_chats_conversation_id_fkey",
            ondelete="SET NULL",
        ),
        sa.PrimaryKeyConstraint("chat_key", name="external_chats_pkey"),
    )
    op.create_index("external_chats_matchup_idx", "external_chats", ["matchup_id"])


def downgrade() -> None:
    op.drop_index("external_chats_matchup_idx", table_name="external_chats")
    op.drop_table("external_chats")
