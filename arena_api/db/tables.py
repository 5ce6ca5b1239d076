"""SQLAlchemy metadata of the whole schema: the single description Alembic and the code share.

The tables, columns and constraints are those of the seed data model: constraints do the integrity
work (one vote per matchup, no branching, no self-match, the turn/parent pairing, metric ranges).
Every constraint has a stable name so a violation can be classified without parsing messages.
"""

from __future__ import annotations

from typing import Any

from sqlalchemy import (
    BigInteger,
    Boolean,
    CheckConstraint,
    Column,
    Computed,
    Date,
    DateTime,
    Float,
    ForeignKey,
    Identity,
    Index,
    Integer,
    LargeBinary,
    MetaData,
    Numeric,
    PrimaryKeyConstraint,
    SmallInteger,
    Table,
    Text,
    UniqueConstraint,
    func,
    text,
)
from sqlalchemy.dialects.postgresql import ARRAY, JSONB, UUID

from arena_api.core.lifecycle import MODEL_STATUSES
from arena_api.core.populations import CATEGORY_BOARD, METHODS, OTHER_POPULATIONS, POPULATIONS
from arena_api.core.sides import OUTCOME_COUNTERS, SKIP, VOTES, sql_labels
from arena_api.core.style_features import spread_columns

__all__ = [
    "SCHEMA_LOCK_KEY",
    "category_cost_daily",
    "category_latency_buckets",
    "category_latency_values",
    "category_response_stats",
    "vote_exclusions",
    "category_pair_stats",
    "category_vote_activity",
    "suite_results",
    "suite_runs",
    "autojudge_claims",
    "conversations",
    "external_chats",
    "images",
    "judge_verdicts",
    "matchups",
    "metadata",
    "model_cost_daily",
    "model_population_ratings",
    "model_rating_history",
    "model_ratings",
    "model_style_ratings",
    "model_vote_stats",
    "models",
    "model_response_stats",
    "pair_outcome_stats",
    "pair_style_stats",
    "pair_vote_stats",
    "preferences",
    "rating_passes",
    "response_latency_buckets",
    "response_latency_values",
    "responses",
    "style_control_coefficients",
    "turn_images",
    "turns",
    "vote_activity",
]

#: The advisory lock of the schema itself. A migration holds it exclusively; a process that reads
#: across tables at length outside the request path (a rating pass) holds it shared. Such a pass
#: holds locks on several tables in one snapshot, and a migration altering one of them while
#: waiting for another deadlocks with it: PostgreSQL then kills one side, perhaps the migration
#: of a replica that is starting.
SCHEMA_LOCK_KEY = 1095913027

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
    _created_at(),
    # US dollars per million tokens, from the roster; both or neither.
    Column("input_price_per_mtok", Numeric(14, 6), nullable=True),
    Column("output_price_per_mtok", Numeric(14, 6), nullable=True),
    #: ``active`` models are matched; ``paused`` and ``archived`` ones keep their history on the
    #: board and are never matched (archived: gone from the roster, or known only from an
    #: import). ``enabled`` is that rule, computed (migration 0018).
    Column("status", Text, nullable=False, server_default=text("'active'")),
    Column("enabled", Boolean, Computed("status = 'active'", persisted=True)),
    #: Where the model came from: the roster ``file`` (seeded at every start, archived when the
    #: file drops it), the admin ``console`` (kept as it is by a seed), an ``import``
    #: (migration 0022).
    Column("source", Text, nullable=False, server_default=text("'file'")),
    #: The model reads images (the roster's ``vision: true``; migration 0025).
    Column("vision", Boolean, nullable=False, server_default=text("false")),
    UniqueConstraint("provider", "provider_model_id"),
    CheckConstraint("source IN ('file', 'console', 'import')", name="source"),
    CheckConstraint(f"status IN ({sql_labels(MODEL_STATUSES)})", name="status"),
    CheckConstraint(
        "(input_price_per_mtok IS NULL) = (output_price_per_mtok IS NULL)", name="prices_paired"
    ),
    CheckConstraint(
        "input_price_per_mtok >= 0 AND output_price_per_mtok >= 0", name="prices_positive"
    ),
    CheckConstraint(
        "provider IN ('google', 'openai', 'ollama', 'vllm', 'host-proxy', 'mock', 'imported')",
        name="provider",
    ),
)


def _imported(table: str) -> list[Any]:
    """Which system and which of its records a row was imported from (NULL: made here); the
    pair is unique, so the same data imported twice adds nothing (migration 0018)."""
    return [
        Column("import_source", Text, nullable=True),
        Column("import_id", Text, nullable=True),
        CheckConstraint("(import_source IS NULL) = (import_id IS NULL)", name="import_pair"),
        Index(
            f"{table}_import_idx",
            "import_source",
            "import_id",
            unique=True,
            postgresql_where=text("import_source IS NOT NULL"),
        ),
    ]


conversations = Table(
    "conversations",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("anonymous_session_id", Text, nullable=True),
    _created_at(),
    *_imported("conversations"),
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
    #: What the prompt is about (``arena_api.core.categories``), its language (ISO 639, or
    #: ``und``) and its normalised key; NULL on rounds stored before they were classified.
    Column("categories", ARRAY(Text), nullable=True),
    Column("language", Text, nullable=True),
    Column("prompt_key", Text, nullable=True),
    #: The replica that ran the round (``REDIS_URL``); NULL in one process (migration 0016).
    Column("replica", Text, nullable=True),
    Column("steers", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    #: How many images the prompt had; kept when text retention clears them (migration 0025).
    Column("image_count", SmallInteger, nullable=False, server_default=text("0")),
    _created_at(),
    *_imported("matchups"),
    CheckConstraint("image_count >= 0", name="image_count"),
    CheckConstraint("model_a_id <> model_b_id", name="distinct_models"),
    CheckConstraint("slot_a_model_id <> slot_b_model_id", name="distinct_slots"),
    CheckConstraint("mode IN ('blind', 'shadow', 'named')", name="mode"),
    # Lets the rating process ask whether any named round exists without reading the rest.
    Index("matchups_named_idx", "id", postgresql_where=text("mode = 'named'")),
    Index("matchups_shadow_idx", "created_at", postgresql_where=text("mode = 'shadow'")),
    Index("matchups_unclassified_idx", "id", postgresql_where=text("categories IS NULL")),
    Index(
        "matchups_replica_idx",
        "replica",
        "created_at",
        postgresql_where=text("replica IS NOT NULL"),
    ),
    # The duplicate-prompt cap counts rounds per prompt down it (migration 0017).
    Index("matchups_prompt_key_idx", "prompt_key"),
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
    Column("latency_ms", Integer, nullable=True),
    Column("ttft_ms", Integer, nullable=True),
    #: NULL only on an answer imported without timings (migration 0018).
    Column("stream_duration_ms", Integer, nullable=True),
    Column("output_token_count", Integer, nullable=False),
    Column("token_count_source", Text, nullable=False),
    Column("markdown_density", Float, nullable=False),
    Column("model_version", Text, nullable=True),
    Column("error", Text, nullable=True),
    _created_at(),
    Column("input_token_count", Integer, nullable=False, server_default=text("0")),
    Column("input_token_source", Text, nullable=False, server_default=text("'estimated'")),
    Column("cost_usd", Numeric(18, 9), nullable=True),
    #: The answer names its own model or vendor (NULL: stored before this was checked).
    Column("names_itself", Boolean, nullable=True),
    UniqueConstraint("matchup_id", "slot"),
    CheckConstraint("slot IN ('A', 'B')", name="slot"),
    CheckConstraint("latency_ms >= 0", name="latency"),
    CheckConstraint("ttft_ms >= 0", name="ttft"),
    CheckConstraint("stream_duration_ms >= 0", name="duration"),
    CheckConstraint("output_token_count >= 0", name="token_count"),
    CheckConstraint("token_count_source IN ('provider', 'estimated')", name="token_source"),
    CheckConstraint("markdown_density >= 0 AND markdown_density <= 1", name="markdown_density"),
    CheckConstraint("input_token_count >= 0", name="input_tokens"),
    CheckConstraint("input_token_source IN ('provider', 'estimated')", name="input_token_source"),
    CheckConstraint("cost_usd >= 0", name="cost"),
    # The rating process's identity-leak filter reads the few answers that named themselves.
    Index("responses_names_itself_idx", "matchup_id", postgresql_where=text("names_itself")),
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

#: Images attached to prompts, once each under the SHA-256 of their re-encoded bytes
#: (``arena_api.core.media``); ``turn_images`` says which turn shows which, in order
#: (migration 0025).
images = Table(
    "images",
    metadata,
    Column("sha256", Text, primary_key=True),
    Column("media_type", Text, nullable=False),
    Column("width", Integer, nullable=False),
    Column("height", Integer, nullable=False),
    Column("size", Integer, nullable=False),
    Column("data", LargeBinary, nullable=False),
    _created_at(),
    CheckConstraint("sha256 ~ '^[0-9a-f]{64}$'", name="sha256"),
    CheckConstraint(
        "media_type IN ('image/png', 'image/jpeg', 'image/gif', 'image/webp')", name="media_type"
    ),
    CheckConstraint("width > 0 AND height > 0 AND size = octet_length(data)", name="shape"),
)

turn_images = Table(
    "turn_images",
    metadata,
    Column(
        "turn_id",
        UUID(as_uuid=True),
        ForeignKey("turns.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("position", SmallInteger, primary_key=True),
    Column("sha256", Text, ForeignKey("images.sha256"), nullable=False),
    CheckConstraint("position >= 0", name="position"),
    Index("turn_images_sha256_idx", "sha256"),
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
    #: Who voted: a person or a judge model (the summaries count human votes only).
    Column("method", Text, nullable=False, server_default=text("'human'")),
    #: The reasons the voter ticked (``ARENA_VOTE_REASONS``; migration 0018).
    Column("reasons", ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    #: The signed-in person who voted (OpenID Connect; migration 0023).
    Column(
        "user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    CheckConstraint(f"vote IN ({sql_labels(VOTES)})", name="vote"),
    CheckConstraint(f"method IN ({sql_labels(METHODS)})", name="method"),
    Index("preferences_winner_idx", "winner_model_id"),
    # A person's votes in the last day, for ARENA_USER_VOTE_CAP (migration 0023).
    Index(
        "preferences_user_idx",
        "user_id",
        "created_at",
        postgresql_where=text("user_id IS NOT NULL"),
    ),
    Index("preferences_judge_idx", "id", postgresql_where=text("method = 'judge'")),
    # The anomaly screen walks people's votes per session in time order (migration 0017).
    Index(
        "preferences_session_idx",
        "anonymous_session_id",
        "created_at",
        postgresql_include=["vote"],
        postgresql_where=text("method = 'human' AND anonymous_session_id IS NOT NULL"),
    ),
    # The reasons read counts the votes that carry a reason through this alone (migration 0019).
    Index(
        "preferences_reasons_idx",
        "method",
        postgresql_include=["winner_model_id", "reasons", "matchup_id"],
        postgresql_where=text("reasons <> '{}'::text[]"),
    ),
)

judge_verdicts = Table(
    "judge_verdicts",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
    ),
    _created_at(),
    Column("source", Text, nullable=False, server_default=text("'request'")),
    Column("judge_name", Text, nullable=False),
    Column("judge_provider", Text, nullable=False),
    Column("judge_model_id", Text, nullable=False),
    Column("outcome", Text, nullable=False),
    Column("vote", Text, nullable=True),
    Column("recorded", Boolean, nullable=False, server_default=text("false")),
    Column("swapped", Boolean, nullable=False),
    Column("readings", JSONB, nullable=False, server_default=text("'[]'::jsonb")),
    Column("reasoning", Text, nullable=False, server_default=text("''")),
    Column("input_tokens", Integer, nullable=False, server_default=text("0")),
    Column("output_tokens", Integer, nullable=False, server_default=text("0")),
    Column("cost_usd", Numeric(18, 9), nullable=True),
    Column("error", Text, nullable=True),
    # ``backfill``: a second opinion on a round people voted on, never a vote (migration 0020).
    CheckConstraint("source IN ('request', 'autojudge', 'suite', 'backfill')", name="source"),
    CheckConstraint(
        "outcome IN ('A', 'B', 'tie', 'both_bad', 'unparseable', 'failed')", name="outcome"
    ),
    CheckConstraint(
        f"vote IS NULL OR vote IN ({sql_labels(v for v in VOTES if v != SKIP)})", name="vote"
    ),
    CheckConstraint("NOT recorded OR vote IS NOT NULL", name="recorded"),
    CheckConstraint("input_tokens >= 0 AND output_tokens >= 0", name="tokens"),
    CheckConstraint("cost_usd >= 0", name="cost"),
    Index("judge_verdicts_matchup_id_idx", "matchup_id"),
)
"""Every judgement a judge model gave, whether or not it became the matchup's vote."""

autojudge_claims = Table(
    "autojudge_claims",
    metadata,
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("claimed_at", DateTime(timezone=True), nullable=False),
    Column("attempts", Integer, nullable=False, server_default=text("1")),
    Column("done", Boolean, nullable=False, server_default=text("false")),
    CheckConstraint("attempts >= 1", name="attempts"),
)
"""The shadow auto-judge's claims: leased while a worker judges, done once it has."""


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

# What each pass of the rating process did (the most recent ones), for the server's /metrics.
rating_passes = Table(
    "rating_passes",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("finished_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("status", Text, nullable=False),
    Column("seconds", Float, nullable=False),
    Column("votes", Integer, nullable=False),
    Column("votes_excluded", Integer, nullable=False),
    Column("sessions_excluded", Integer, nullable=False),
    Column("models", Integer, nullable=False),
    Column("periodic", Boolean, nullable=False),
    #: Votes the identity-leak and the duplicate-prompt filters left out (migration 0015).
    Column("votes_identity_leaks", Integer, nullable=False, server_default=text("0")),
    Column("votes_duplicates", Integer, nullable=False, server_default=text("0")),
    CheckConstraint("status IN ('rated', 'empty')", name="status"),
)

vote_exclusions = Table(
    "vote_exclusions",
    metadata,
    Column(
        "preference_id",
        UUID(as_uuid=True),
        ForeignKey("preferences.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("reason", Text, nullable=False),
    Column("detail", Text, nullable=True),
    Column("excluded_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    CheckConstraint("reason IN ('identity_leak', 'duplicate_prompt')", name="reason"),
)
"""Each vote the latest rating pass's filters left out, and why (migration 0015): an answer of
its round named itself (``detail``: the slots), or its prompt was over the duplicate cap
(``detail``: the prompt key)."""

# The fit of another population of votes than the blind one ``model_ratings`` holds
# (``arena_api.core.populations``): ``with_named``, the blind votes and those of named
# side-by-side rounds; ``judge`` and ``all``; ``unfiltered``, the blind votes the identity-leak
# and duplicate-prompt filters dropped kept in; and one board per slice of prompts
# (``category:coding``, ``category:language:de``; migration 0014).
model_population_ratings = Table(
    "model_population_ratings",
    metadata,
    Column("population", Text, primary_key=True),
    _rated_model_fk(primary_key=True),
    *_rating_columns(),
    CheckConstraint(
        f"population IN ({sql_labels(OTHER_POPULATIONS)}) OR population LIKE '{CATEGORY_BOARD}%'",
        name="population",
    ),
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
    #: Whose votes the board was fitted to: people's, or the judge's / everyone's population.
    Column("population", Text, nullable=False, server_default=text("'human'")),
    PrimaryKeyConstraint("population", "model_id", "computed_at"),
    *_rating_checks(),
    CheckConstraint(
        f"population IN ({sql_labels(POPULATIONS)}) OR population LIKE '{CATEGORY_BOARD}%'",
        name="population",
    ),
    Index("model_rating_history_computed_idx", "computed_at"),
)


# -- derived counters, maintained by triggers on `preferences` (`arena_api.db.read_model`) -------
# The request path reads these instead of scanning every vote: the leaderboard's records and the
# matchmaker's pair counts stay O(models), however many votes are stored.


def _method() -> list[Any]:
    """Who cast the votes a summary row counts (migration 0010): people or a judge model."""
    return [
        Column("method", Text, nullable=False, server_default=text("'human'")),
        CheckConstraint(f"method IN ({sql_labels(METHODS)})", name="method"),
    ]


model_vote_stats = Table(
    "model_vote_stats",
    metadata,
    _rated_model_fk(primary_key=False),
    Column("wins", Integer, nullable=False, server_default=text("0")),
    Column("losses", Integer, nullable=False, server_default=text("0")),
    Column("ties", Integer, nullable=False, server_default=text("0")),
    Column("skips", Integer, nullable=False, server_default=text("0")),
    *_method(),
    PrimaryKeyConstraint("model_id", "method"),
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
    *_method(),
    PrimaryKeyConstraint("model_lo", "model_hi", "method"),
    CheckConstraint("model_lo < model_hi", name="canonical_order"),
)


# -- analytics summaries, kept by triggers on `preferences` and `responses` ----------------------
# Every read of the leaderboard and the insights dashboard is answered from these, so its cost
# grows with models, pairs and hours of history, never with the number of stored votes.
# `arena_api.db.read_model` lists each summary with its triggers and recount; their SQL is in
# `arena_api/db/sql/` (`arena_rebuild_vote_stats()` recounts these too).


def _model_ref(name: str) -> Column[object]:
    return Column(
        name, UUID(as_uuid=True), ForeignKey("models.id", ondelete="CASCADE"), nullable=False
    )


def _outcome_counts() -> list[Column[object]]:
    """One counter per vote label (``left``/``right`` are SQL keywords, hence the suffix)."""
    return [
        Column(OUTCOME_COUNTERS[vote], Integer, nullable=False, server_default=text("0"))
        for vote in VOTES
    ]


pair_outcome_stats = Table(
    "pair_outcome_stats",
    metadata,
    _model_ref("slot_a_model_id"),
    _model_ref("slot_b_model_id"),
    Column("matchups", Integer, nullable=False, server_default=text("0")),
    *_outcome_counts(),
    *_method(),
    PrimaryKeyConstraint("slot_a_model_id", "slot_b_model_id", "method"),
)
"""All-time matchups and votes per *ordered* (slot A, slot B) pair and method: head-to-head,
slot records and the arena's totals. ``matchups`` is on the ``human`` rows only (a matchup is
counted whoever votes on it)."""

vote_activity = Table(
    "vote_activity",
    metadata,
    Column("bucket_start", DateTime(timezone=True), nullable=False),
    _model_ref("model_id"),
    *_outcome_counts(),
    *_method(),
    PrimaryKeyConstraint("bucket_start", "model_id", "method"),
)
"""Votes per UTC hour (``preferences.created_at``) and model, by label: each vote is counted for
both of its models, so a bucket's votes are half the sum over its models."""

category_pair_stats = Table(
    "category_pair_stats",
    metadata,
    Column("category", Text, nullable=False),
    _model_ref("slot_a_model_id"),
    _model_ref("slot_b_model_id"),
    Column("matchups", Integer, nullable=False, server_default=text("0")),
    *_outcome_counts(),
    *_method(),
    PrimaryKeyConstraint("category", "slot_a_model_id", "slot_b_model_id", "method"),
)
"""``pair_outcome_stats`` per slice of prompts (migration 0014): a category such as ``coding``,
or a language as ``language:de``. A round counts under each of its slices."""

category_vote_activity = Table(
    "category_vote_activity",
    metadata,
    Column("category", Text, nullable=False),
    Column("bucket_start", DateTime(timezone=True), nullable=False),
    _model_ref("model_id"),
    *_outcome_counts(),
    *_method(),
    PrimaryKeyConstraint("category", "bucket_start", "model_id", "method"),
)
"""``vote_activity`` per slice of prompts."""

_STYLE_SUMS = spread_columns()

pair_style_stats = Table(
    "pair_style_stats",
    metadata,
    _model_ref("model_lo"),
    _model_ref("model_hi"),
    Column("votes", Integer, nullable=False, server_default=text("0")),
    *(Column(name, Float, nullable=False, server_default=text("0")) for name in _STYLE_SUMS),
    *_method(),
    PrimaryKeyConstraint("model_lo", "model_hi", "method"),
    CheckConstraint("model_lo < model_hi", name="canonical_order"),
)
"""Sums and sums of squares of the per-vote style deltas (slot A minus slot B) per canonical pair,
over the non-skip votes the style pass can use (both answers stored, neither failed, both with a
TTFT): the standard deviations that turn a standardised coefficient into points per unit."""


_Counted = type[Integer | BigInteger | Float[float]]


def _counter(name: str, kind: _Counted = Integer) -> Column[object]:
    return Column(name, kind, nullable=False, server_default=text("0"))


def _answer_sums() -> list[Column[object]]:
    """The sums behind an answer summary's means (also per slice, migration 0014)."""
    return [
        _counter("responses"),
        _counter("ttft_responses"),
        _counter("output_tokens", BigInteger),
        _counter("markdown_density", Float),
    ]


def _latency(column: str, *key: str) -> list[Any]:
    """A latency distribution's columns: ``metric``, ``column`` (the value or its bucket) and the
    answers counted, keyed by ``key`` plus those two."""
    return [
        Column("metric", Text, nullable=False),
        Column(column, Integer, nullable=False),
        _counter("responses"),
        PrimaryKeyConstraint(*key, "metric", column),
        CheckConstraint("metric IN ('ttft', 'duration')", name="metric"),
    ]


model_response_stats = Table(
    "model_response_stats",
    metadata,
    _rated_model_fk(primary_key=True),
    *_answer_sums(),
)
"""Error-free answers per model, with the sums behind the mean token count and Markdown density."""

response_latency_values = Table(
    "response_latency_values",
    metadata,
    _model_ref("model_id"),
    *_latency("value_ms", "model_id"),
)
"""How many error-free answers of a model had each exact TTFT / stream duration (ms)."""

response_latency_buckets = Table(
    "response_latency_buckets",
    metadata,
    _model_ref("model_id"),
    *_latency("bucket", "model_id"),
)
"""The same counts per 100 ms bucket (``value_ms / 100``): a percentile is located in a bucket
first, then read exactly from at most 100 rows of ``response_latency_values``."""


# -- the same answer summaries per slice of prompts (migration 0014) ------------------------------


def _category() -> Column[object]:
    return Column("category", Text, nullable=False)


category_response_stats = Table(
    "category_response_stats",
    metadata,
    _category(),
    _model_ref("model_id"),
    *_answer_sums(),
    PrimaryKeyConstraint("category", "model_id"),
)
"""``model_response_stats`` per slice of prompts."""

category_latency_values = Table(
    "category_latency_values",
    metadata,
    _category(),
    _model_ref("model_id"),
    *_latency("value_ms", "category", "model_id"),
)
"""``response_latency_values`` per slice of prompts."""

category_latency_buckets = Table(
    "category_latency_buckets",
    metadata,
    _category(),
    _model_ref("model_id"),
    *_latency("bucket", "category", "model_id"),
)
"""``response_latency_buckets`` per slice of prompts."""


# An external chat UI's chat (Open WebUI's ``X-OpenWebUI-Chat-Id``) and where it stands in the
# arena: the latest votable matchup it was shown and the conversation a decisive vote continues.
# ``chat_key`` is a SHA-256 of the client's chat id: the id is the capability to vote in that
# chat, so only its digest is stored. ``vote_message`` digests the command message that voted,
# so the same command arriving once per compare column records one vote.
external_chats = Table(
    "external_chats",
    metadata,
    Column("chat_key", Text, primary_key=True),
    Column("session_id", Text, nullable=False),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column(
        "conversation_id",
        UUID(as_uuid=True),
        ForeignKey("conversations.id", ondelete="SET NULL"),
        nullable=True,
    ),
    Column("vote_message", Text, nullable=True),
    _created_at(),
    Column("updated_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Index("external_chats_matchup_idx", "matchup_id"),
)


def _cost_sums() -> list[Column[object]]:
    """Answers, their tokens and cost (also per slice, migration 0014)."""
    return [
        _counter("responses"),
        _counter("priced_responses"),
        _counter("estimated_responses"),
        _counter("input_tokens", BigInteger),
        _counter("output_tokens", BigInteger),
        Column("cost_usd", Numeric(20, 9), nullable=False, server_default=text("0")),
    ]


model_cost_daily = Table(
    "model_cost_daily",
    metadata,
    Column("day", Date, nullable=False),
    _model_ref("model_id"),
    *_cost_sums(),
    PrimaryKeyConstraint("day", "model_id"),
)
"""Every answer (failed ones too: they may have cost something) per UTC day of
``responses.created_at`` and model: its tokens, its cost, how many had prices to cost them and
how many counts were estimated rather than reported by the provider."""

category_cost_daily = Table(
    "category_cost_daily",
    metadata,
    _category(),
    Column("day", Date, nullable=False),
    _model_ref("model_id"),
    *_cost_sums(),
    PrimaryKeyConstraint("category", "day", "model_id"),
)
"""``model_cost_daily`` per slice of prompts (migration 0014)."""

suite_runs = Table(
    "suite_runs",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("suite", Text, nullable=False),
    Column("status", Text, nullable=False),
    Column("total", Integer, nullable=False),
    Column("completed", Integer, nullable=False, server_default=text("0")),
    #: The suite's prompts as the run started (a later edit of the file does not change it).
    Column("prompts", JSONB, nullable=False),
    Column("models", JSONB, nullable=True),
    Column("error", Text, nullable=True),
    _created_at(),
    Column("finished_at", DateTime(timezone=True), nullable=True),
    CheckConstraint("status IN ('running', 'done', 'failed', 'interrupted')", name="status"),
    CheckConstraint("completed >= 0 AND completed <= total", name="progress"),
    Index("suite_runs_suite_idx", "suite", "created_at"),
)
"""One run of an eval suite: its prompts, progress and status."""

suite_results = Table(
    "suite_results",
    metadata,
    Column(
        "run_id",
        UUID(as_uuid=True),
        ForeignKey("suite_runs.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column("prompt_index", Integer, primary_key=True),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="SET NULL"),
        nullable=True,
    ),
    Column("outcome", Text, nullable=False),
    Column(
        "winner_model_id",
        UUID(as_uuid=True),
        ForeignKey("models.id", ondelete="SET NULL"),
        nullable=True,
    ),
    Column("cost_usd", Numeric(18, 9), nullable=True),
    Column("error", Text, nullable=True),
    _created_at(),
    CheckConstraint(
        "outcome IN ('A', 'B', 'tie', 'both_bad', 'unparseable', 'failed')", name="outcome"
    ),
)
"""A suite run's verdict on one of its prompts (its round, the judged outcome, the cost)."""

users = Table(
    "users",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True, server_default=func.gen_random_uuid()),
    Column("issuer", Text, nullable=False),
    Column("subject", Text, nullable=False),
    Column("email", Text, nullable=True),
    Column("name", Text, nullable=True),
    Column("role", Text, nullable=False, server_default=text("'voter'")),
    Column("first_seen_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column("last_seen_at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    UniqueConstraint("issuer", "subject"),
    CheckConstraint("role IN ('admin', 'reviewer', 'voter')", name="role"),
)
"""A person who signed in with OpenID Connect: the provider's subject, and their role here."""

user_tokens = Table(
    "user_tokens",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True, server_default=func.gen_random_uuid()),
    Column(
        "user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"), nullable=False
    ),
    Column("name", Text, nullable=False),
    Column("token_hash", LargeBinary, nullable=False, unique=True),
    Column("hint", Text, nullable=False),
    Column("scopes", ARRAY(Text), nullable=False),
    _created_at(),
    Column("last_used_at", DateTime(timezone=True), nullable=True),
    Column("revoked_at", DateTime(timezone=True), nullable=True),
    CheckConstraint(
        "scopes <@ ARRAY['read', 'vote', 'admin']::text[] AND cardinality(scopes) > 0",
        name="scopes",
    ),
    Index("user_tokens_user_id_idx", "user_id"),
)
"""A user's API token: only its SHA-256 is kept (the token is shown once), with the first
characters to tell tokens apart, its scopes, and when it was last used or revoked."""

audit_log = Table(
    "audit_log",
    metadata,
    Column("id", BigInteger, Identity(always=True), primary_key=True),
    Column("at", DateTime(timezone=True), nullable=False, server_default=func.now()),
    Column(
        "actor_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL"), nullable=True
    ),
    Column("actor", Text, nullable=False),
    Column("action", Text, nullable=False),
    Column("target", Text, nullable=True),
    Column("before", JSONB, nullable=True),
    Column("after", JSONB, nullable=True),
    Index("audit_log_at_idx", "at"),
)
"""Who did what, when: every sign-in and sign-out, and every admin action with the state it
changed before and after. Append-only; ``actor`` keeps a readable name (an email, ``cli``) when
the user row is gone."""

review_queues = Table(
    "review_queues",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column("name", Text, nullable=False),
    Column("reviews_per_item", Integer, nullable=False),
    #: Where its rounds came from: ``{"suiteRun": id}``, ``{"rounds": {filters}}`` or
    #: ``{"prompts": [...]}``.
    Column("source", JSONB, nullable=False),
    #: Rounds still being played for it (made from a list of prompts).
    Column("pending", Integer, nullable=False, server_default=text("0")),
    Column("created_by", UUID(as_uuid=True), ForeignKey("users.id", ondelete="SET NULL")),
    _created_at(),
    CheckConstraint("reviews_per_item BETWEEN 1 AND 20", name="reviews_per_item"),
    CheckConstraint("pending >= 0", name="pending"),
)
"""An expert review queue: rounds that named reviewers vote on blind, k reviews an item."""

review_queue_reviewers = Table(
    "review_queue_reviewers",
    metadata,
    Column(
        "queue_id",
        UUID(as_uuid=True),
        ForeignKey("review_queues.id", ondelete="CASCADE"),
        primary_key=True,
    ),
    Column(
        "user_id", UUID(as_uuid=True), ForeignKey("users.id", ondelete="CASCADE"), primary_key=True
    ),
)

review_items = Table(
    "review_items",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "queue_id",
        UUID(as_uuid=True),
        ForeignKey("review_queues.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("position", Integer, nullable=False),
    Column(
        "matchup_id",
        UUID(as_uuid=True),
        ForeignKey("matchups.id", ondelete="CASCADE"),
        nullable=False,
    ),
    UniqueConstraint("queue_id", "matchup_id"),
    UniqueConstraint("queue_id", "position"),
)

review_verdicts = Table(
    "review_verdicts",
    metadata,
    Column("id", UUID(as_uuid=True), primary_key=True),
    Column(
        "item_id",
        UUID(as_uuid=True),
        ForeignKey("review_items.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column(
        "reviewer_id",
        UUID(as_uuid=True),
        ForeignKey("users.id", ondelete="CASCADE"),
        nullable=False,
    ),
    Column("vote", Text, nullable=False),
    Column("reasons", ARRAY(Text), nullable=False, server_default=text("'{}'::text[]")),
    Column("comment", Text, nullable=True),
    _created_at(),
    UniqueConstraint("item_id", "reviewer_id"),
    CheckConstraint(f"vote IN ({sql_labels(VOTES)})", name="vote"),
)
"""One reviewer's verdict on one item (a skip passes it on to another reviewer)."""
