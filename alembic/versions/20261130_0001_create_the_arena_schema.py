"""create the arena schema: every table, constraint and index of the seed data model

Revision ID: 0001
Revises:
Create Date: 2026-11-30 07:16:34.879221
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op
from sqlalchemy.dialects import postgresql

revision: str = "0001"
down_revision: str | None = None
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None


def upgrade() -> None:
    op.create_table(
        "conversations",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("anonymous_session_id", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("conversations_pkey")),
    )
    op.create_table(
        "models",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("display_name", sa.Text(), nullable=False),
        sa.Column("provider", sa.Text(), nullable=False),
        sa.Column("provider_model_id", sa.Text(), nullable=False),
        sa.Column("enabled", sa.Boolean(), server_default=sa.text("true"), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "provider IN ('google', 'openai', 'ollama', 'vllm', 'host-proxy', 'mock')",
            name=op.f("models_provider_check"),
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("models_pkey")),
        sa.UniqueConstraint(
            "provider", "provider_model_id", name=op.f("models_provider_provider_model_id_key")
        ),
    )
    op.create_table(
        "style_control_coefficients",
        sa.Column("feature", sa.Text(), nullable=False),
        sa.Column("coefficient", sa.Float(), nullable=False),
        sa.Column(
            "computed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.PrimaryKeyConstraint("feature", name=op.f("style_control_coefficients_pkey")),
    )
    op.create_table(
        "matchups",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column("model_a_id", sa.UUID(), nullable=False),
        sa.Column("model_b_id", sa.UUID(), nullable=False),
        sa.Column("slot_a_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_b_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_a_provider_model_id", sa.Text(), nullable=False),
        sa.Column("slot_b_provider_model_id", sa.Text(), nullable=False),
        sa.Column("matchup_token_hash", sa.Text(), nullable=False),
        sa.Column("harness_version", sa.Text(), server_default=sa.text("'v1'"), nullable=False),
        sa.Column("mode", sa.Text(), server_default=sa.text("'blind'"), nullable=False),
        sa.Column(
            "steers",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'[]'::jsonb"),
            nullable=False,
        ),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("mode IN ('blind', 'shadow')", name=op.f("matchups_mode_check")),
        sa.CheckConstraint("model_a_id <> model_b_id", name=op.f("matchups_distinct_models_check")),
        sa.CheckConstraint(
            "slot_a_model_id <> slot_b_model_id", name=op.f("matchups_distinct_slots_check")
        ),
        sa.ForeignKeyConstraint(
            ["model_a_id"], ["models.id"], name=op.f("matchups_model_a_id_fkey")
        ),
        sa.ForeignKeyConstraint(
            ["model_b_id"], ["models.id"], name=op.f("matchups_model_b_id_fkey")
        ),
        sa.ForeignKeyConstraint(
            ["slot_a_model_id"], ["models.id"], name=op.f("matchups_slot_a_model_id_fkey")
        ),
        sa.ForeignKeyConstraint(
            ["slot_b_model_id"], ["models.id"], name=op.f("matchups_slot_b_model_id_fkey")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("matchups_pkey")),
    )
    op.create_table(
        "model_rating_history",
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rating_stderr", sa.Float(), nullable=False),
        sa.Column("ci_lower", sa.Float(), nullable=False),
        sa.Column("ci_upper", sa.Float(), nullable=False),
        sa.Column("component_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column(
            "computed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "ci_lower <= ci_upper", name=op.f("model_rating_history_ci_order_check")
        ),
        sa.CheckConstraint("games >= 0", name=op.f("model_rating_history_games_check")),
        sa.CheckConstraint("rating_stderr >= 0", name=op.f("model_rating_history_stderr_check")),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name=op.f("model_rating_history_model_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", "computed_at", name=op.f("model_rating_history_pkey")),
    )
    op.create_index(
        "model_rating_history_computed_idx", "model_rating_history", ["computed_at"], unique=False
    )
    op.create_table(
        "model_ratings",
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("rating", sa.Float(), nullable=False),
        sa.Column("rating_stderr", sa.Float(), nullable=False),
        sa.Column("ci_lower", sa.Float(), nullable=False),
        sa.Column("ci_upper", sa.Float(), nullable=False),
        sa.Column("component_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column(
            "computed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("ci_lower <= ci_upper", name=op.f("model_ratings_ci_order_check")),
        sa.CheckConstraint("games >= 0", name=op.f("model_ratings_games_check")),
        sa.CheckConstraint("rating_stderr >= 0", name=op.f("model_ratings_stderr_check")),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name=op.f("model_ratings_model_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_ratings_pkey")),
    )
    op.create_table(
        "model_style_ratings",
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("style_controlled_rating", sa.Float(), nullable=False),
        sa.Column("style_controlled_stderr", sa.Float(), nullable=False),
        sa.Column("style_ci_lower", sa.Float(), nullable=False),
        sa.Column("style_ci_upper", sa.Float(), nullable=False),
        sa.Column("component_id", sa.Integer(), nullable=False),
        sa.Column("games", sa.Integer(), nullable=False),
        sa.Column(
            "computed_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("games >= 0", name=op.f("model_style_ratings_games_check")),
        sa.CheckConstraint(
            "style_ci_lower <= style_ci_upper", name=op.f("model_style_ratings_ci_order_check")
        ),
        sa.CheckConstraint(
            "style_controlled_stderr >= 0", name=op.f("model_style_ratings_stderr_check")
        ),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name=op.f("model_style_ratings_model_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_style_ratings_pkey")),
    )
    op.create_table(
        "preferences",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column("vote", sa.Text(), nullable=False),
        sa.Column("winner_model_id", sa.UUID(), nullable=True),
        sa.Column(
            "position_bias_meta",
            postgresql.JSONB(astext_type=sa.Text()),
            server_default=sa.text("'{}'::jsonb"),
            nullable=False,
        ),
        sa.Column("anonymous_session_id", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "vote IN ('left', 'right', 'both_good', 'both_bad', 'skip')",
            name=op.f("preferences_vote_check"),
        ),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name=op.f("preferences_matchup_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["winner_model_id"], ["models.id"], name=op.f("preferences_winner_model_id_fkey")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("preferences_pkey")),
        sa.UniqueConstraint("matchup_id", name=op.f("preferences_matchup_id_key")),
    )
    op.create_index("preferences_winner_idx", "preferences", ["winner_model_id"], unique=False)
    op.create_table(
        "responses",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column("slot", sa.Text(), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("content", sa.Text(), nullable=False),
        sa.Column("latency_ms", sa.Integer(), nullable=False),
        sa.Column("ttft_ms", sa.Integer(), nullable=True),
        sa.Column("stream_duration_ms", sa.Integer(), nullable=False),
        sa.Column("output_token_count", sa.Integer(), nullable=False),
        sa.Column("token_count_source", sa.Text(), nullable=False),
        sa.Column("markdown_density", sa.Float(), nullable=False),
        sa.Column("model_version", sa.Text(), nullable=True),
        sa.Column("error", sa.Text(), nullable=True),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint("slot IN ('A', 'B')", name=op.f("responses_slot_check")),
        sa.CheckConstraint(
            "token_count_source IN ('provider', 'estimated')",
            name=op.f("responses_token_source_check"),
        ),
        sa.CheckConstraint("latency_ms >= 0", name=op.f("responses_latency_check")),
        sa.CheckConstraint(
            "markdown_density >= 0 AND markdown_density <= 1",
            name=op.f("responses_markdown_density_check"),
        ),
        sa.CheckConstraint("output_token_count >= 0", name=op.f("responses_token_count_check")),
        sa.CheckConstraint("stream_duration_ms >= 0", name=op.f("responses_duration_check")),
        sa.CheckConstraint("ttft_ms >= 0", name=op.f("responses_ttft_check")),
        sa.ForeignKeyConstraint(
            ["matchup_id"],
            ["matchups.id"],
            name=op.f("responses_matchup_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(["model_id"], ["models.id"], name=op.f("responses_model_id_fkey")),
        sa.PrimaryKeyConstraint("id", name=op.f("responses_pkey")),
        sa.UniqueConstraint("matchup_id", "slot", name=op.f("responses_matchup_id_slot_key")),
    )
    op.create_table(
        "turns",
        sa.Column("id", sa.UUID(), nullable=False),
        sa.Column("conversation_id", sa.UUID(), nullable=False),
        sa.Column("matchup_id", sa.UUID(), nullable=False),
        sa.Column("parent_response_id", sa.UUID(), nullable=True),
        sa.Column("turn_index", sa.Integer(), nullable=False),
        sa.Column("prompt", sa.Text(), nullable=False),
        sa.Column(
            "created_at",
            sa.DateTime(timezone=True),
            server_default=sa.text("now()"),
            nullable=False,
        ),
        sa.CheckConstraint(
            "(turn_index = 0 AND parent_response_id IS NULL)"
            " OR (turn_index > 0 AND parent_response_id IS NOT NULL)",
            name=op.f("turns_parent_pairing_check"),
        ),
        sa.CheckConstraint("turn_index >= 0", name=op.f("turns_turn_index_check")),
        sa.ForeignKeyConstraint(
            ["conversation_id"],
            ["conversations.id"],
            name=op.f("turns_conversation_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["matchup_id"], ["matchups.id"], name=op.f("turns_matchup_id_fkey"), ondelete="CASCADE"
        ),
        sa.ForeignKeyConstraint(
            ["parent_response_id"], ["responses.id"], name=op.f("turns_parent_response_id_fkey")
        ),
        sa.PrimaryKeyConstraint("id", name=op.f("turns_pkey")),
        sa.UniqueConstraint(
            "conversation_id", "turn_index", name=op.f("turns_conversation_id_turn_index_key")
        ),
        sa.UniqueConstraint("matchup_id", name=op.f("turns_matchup_id_key")),
        sa.UniqueConstraint("parent_response_id", name=op.f("turns_parent_response_id_key")),
    )
    op.create_index(
        "turns_conversation_idx", "turns", ["conversation_id", "turn_index"], unique=False
    )


def downgrade() -> None:
    op.drop_index("turns_conversation_idx", table_name="turns")
    op.drop_table("turns")
    op.drop_table("responses")
    op.drop_index("preferences_winner_idx", table_name="preferences")
    op.drop_table("preferences")
    op.drop_table("model_style_ratings")
    op.drop_table("model_ratings")
    op.drop_index("model_rating_history_computed_idx", table_name="model_rating_history")
    op.drop_table("model_rating_history")
    op.drop_table("matchups")
    op.drop_table("style_control_coefficients")
    op.drop_table("models")
    op.drop_table("conversations")
