"""SQLAlchemy metadata of the whole schema: the single description Alembic and the code share.

The tables, columns and constraints are those of the seed data model: constraints do the integrity
work (one vote per matchup, no branching, no self-match, the turn/parent pairing, metric ranges).
Every constraint has a stable name so a violation can be classified without parsing messages.
"""

from __future__ import annotations

from sqlalchemy import (
    Boolean,
    CheckConstraint,
    Column,
    DateTime,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    PrimaryKeyConstraint,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import JSONB, UUID

__all__ = [
    "conversations",
    "matchups",
    "metadata",
    "model_rating_history",
    "model_ratings",
    "model_style_ratings",
    "model_vote_stats",
    "models",
    "pair_vote_stats",
    "preferences",
    "responses",
    "style_control_coefficients",
    "turns",
]

metadata = MetaData(
    naming_convention={
        "ix": "%(table_name)s_%(column_0_N_name)s_idx",
        "uq": "%(table_name)s_%(column_0_N_name)s_key",
        "ck": "%(table_name)s_%(constraint_name)s_check",
        "fk": "%(table_name)s_%(column_0_name)s_fkey",
        "pk": "%(table_name)s_pkey",
    }
)


def _created_at() -> Column[object]:
    return Column("created_at", DateTime(timezone=True), nullable=False, server_default=func.now())


def _model_fk(name: str, *, nullable: bool = False) -> Column[object]:
    return Column(name, UUID(as_uuid=True), ForeignKey("models.id"), nullable=nullable)


models = Table(
    "models",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("display_name", Text, nullable=False),
    Column("provider", Text, nullable=False),
    Column("provider_model_id", Text, nullable=False),
    Column("enabled", Boolean, nullable=False, server_default=text("true")),
    _created_at(),
    UniqueConstraint("provider", "provider_model_id"),
    CheckConstraint(
        "provider IN ('google', 'openai', 'ollama', 'vllm', 'host-proxy', 'mock')",
        name="provider",
    ),
)

conversations = Table(
    "conversations",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("anonymous_session_id", Text, nullable=True),
    _created_at(),
)

matchups = Table(
    "matchups",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("prompt", Text, nullable=False),
    _model_fk("model_a_id"),
    _model_fk("model_b_id"),
    _model_fk("slot_a_model_id"),
    _model_fk("slot_b_model_id"),
    Column("slot_a_provider_model_id", Text, nullable=False),
    Column("slot_b_provider_model_id", Text, nullable=False),
    Column("matchup_token_hash", Text, nullable=False),
    Column("harness_version", Text, nullable=False, server_default=text("'v1'")),
    Column("mode", Text, nullable=False, server_default=text("'blind'")),
    Column("steers", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    _created_at(),
    CheckConstraint("model_a_id <> model_b_id", name="distinct_models"),
    CheckConstraint("slot_a_model_id <> slot_b_model_id", name="distinct_slots"),
    CheckConstraint("mode IN ('blind', 'shadow')", name="mode"),
)

responses = Table(
    "responses",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("slot", Text, nullable=False),
    _model_fk("model_id"),
    Column("content", Text, nullable=False),
    Column("latency_ms", Integer, nullable=False),
    Column("ttft_ms", Integer, nullable=True),
    Column("stream_duration_ms", Integer, nullable=False),
    Column("output_token_count", Integer, nullable=False),
    Column("token_count_source", Text, nullable=False),
    Column("markdown_density", Float, nullable=False),
    Column("model_version", Text, nullable=True),
    Column("error", Text, nullable=True),
    _created_at(),
    UniqueConstraint("matchup_id", "slot"),
    CheckConstraint("slot IN ('A', 'B')", name="slot"),
    CheckConstraint("latency_ms >= 0", name="latency"),
    CheckConstraint("ttft_ms >= 0", name="ttft"),
    CheckConstraint("stream_duration_ms >= 0", name="duration"),
    CheckConstraint("output_token_count >= 0", name="token_count"),
    CheckConstraint("token_count_source IN ('provider', 'estimated')", name="token_source"),
    CheckConstraint("markdown_density >= 0 AND markdown_density <= 1", name="markdown_density"),
)

turns = Table(
    "turns",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "conversation_id",
        UUID(as_uuid=True),
        ForeignKey("conversations.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
        unique=True,
    ),
    Column(
        "parent_response_id",
        UUID(as_uuid=True),
        ForeignKey("responses.id"),
        nullable=True,
        unique=True,
    ),
    Column("turn_index", Integer, nullable=False),
    Column("prompt", Text, nullable=False),
    _created_at(),
    UniqueConstraint("conversation_id", "turn_index"),
    CheckConstraint("turn_index >= 0", name="turn_index"),
    CheckConstraint(
        "(turn_index = 0 AND parent_response_id IS NULL)"
        " OR (turn_index > 0 AND parent_response_id IS NOT NULL)",
        name="parent_pairing",
    ),
    Index("turns_conversation_idx", "conversation_id", "turn_index"),
)

preferences = Table(
    "preferences",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
        unique=True,
    ),
    Column("vote", Text, nullable=False),
    _model_fk("winner_model_id", nullable=True),
    Column("position_bias_meta", JSONB, nullable=False, server_default=text("'{}'::jsonb")),
    Column("anonymous_session_id", Text, nullable=True),
    _created_at(),
    CheckConstraint("vote IN ('left', 'right', 'both_good', 'both_bad', 'skip')", name="vote"),
    Index("preferences_winner_idx", "winner_model_id"),
)


def _rating_columns(prefix: str = "") -> list[Column[object]]:
    """Rating, standard error, 95% interval, component and games: shared by the rating tables."""
    rating = f"{prefix}rating" if prefix else "rating"
    stderr = f"{prefix}stderr" if prefix else "rating_stderr"
    return [
        Column(rating, Float, nullable=False),
        Column(stderr, Float, nullable=False),
        Column("ci_lower" if not prefix else "style_ci_lower", Float, nullable=False),
        Column("ci_upper" if not prefix else "style_ci_upper", Float, nullable=False),
        Column("component_id", Integer, nullable=False),
        Column("games", Integer, nullable=False),
        Column("computed_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    ]


def _rating_checks(prefix: str = "") -> list[CheckConstraint]:
    lower, upper = ("style_ci_lower", "style_ci_upper") if prefix else ("ci_lower", "ci_upper")
    stderr = f"{prefix}stderr" if prefix else "rating_stderr"
    return [
        CheckConstraint(f"{lower} <= {upper}", name="ci_order"),
        CheckConstraint(f"{stderr} >= 0", name="stderr"),
        CheckConstraint("games >= 0", name="games"),
    ]


def _rated_model_fk(*, primary_key: bool) -> Column[object]:
    return Column(
        "model_id",
        UUID(as_uuid=True),
        ForeignKey("models.id", ondelete="CASCADE"),
        primary_key=primary_key,
        nullable=False,
    )


model_ratings = Table(
    "model_ratings",
    metadata,
    _rated_model_fk(primary_key=True),
    *_rating_columns(),
    *_rating_checks(),
)

model_style_ratings = Table(
    "model_style_ratings",
    metadata,
    _rated_model_fk(primary_key=True),
    *_rating_columns("style_controlled_"),
    *_rating_checks("style_controlled_"),
)

style_control_coefficients = Table(
    "style_control_coefficients",
    metadata,
    Column("feature", Text, primary_key=True),
    Column("coefficient", Float, nullable=False),
    Column("computed_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
)

model_rating_history = Table(
    "model_rating_history",
    metadata,
    _rated_model_fk(primary_key=False),
    *_rating_columns(),
    PrimaryKeyConstraint("model_id", "computed_at"),
    *_rating_checks(),
    Index("model_rating_history_computed_idx", "computed_at"),
)


# -- derived counters, maintained by triggers on `preferences` (migration 0002) -------------------
# The request path reads these instead of scanning every vote: the leaderboard's records and the
# matchmaker's pair counts stay O(models), however many votes are stored.

model_vote_stats = Table(
    "model_vote_stats",
    metadata,
    _rated_model_fk(primary_key=True),
    Column("wins", Integer, nullable=False, server_default=text("0")),
    Column("losses", Integer, nullable=False, server_default=text("0")),
    Column("ties", Integer, nullable=False, server_default=text("0")),
    Column("skips", Integer, nullable=False, server_default=text("0")),
)

pair_vote_stats = Table(
    "pair_vote_stats",
    metadata,
    Column(
        "model_lo", UUID(as_uuid=True), ForeignKey("models.id", ondelete="CASCADE"), nullable=False
    ),
    Column(
        "model_hi", UUID(as_uuid=True), ForeignKey("models.id", ondelete="CASCADE"), nullable=False
    ),
    Column("games", Integer, nullable=False, server_default=text("0")),
    PrimaryKeyConstraint("model_lo", "model_hi"),
    CheckConstraint("model_lo < model_hi", name="canonical_order"),
)
