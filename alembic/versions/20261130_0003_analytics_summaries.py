"""keep the analytics summaries current with triggers on preferences and responses

The leaderboard and the insights dashboard must answer in milliseconds however many votes are
stored, so nothing they read scans ``matchups``, ``preferences`` or ``responses``. Row triggers
keep six small summary tables current in the writing transaction, for every writer:

* ``matchups_count_matchup``: matchups per ordered slot pair (``pair_outcome_stats``);
* ``preferences_roll_up_vote``: vote counts per ordered slot pair (``pair_outcome_stats``) and per
  UTC hour and model (``vote_activity``, each vote counted for both of its models);
* ``responses_roll_up_response``: error-free answers per model (``model_response_stats``) and
  their exact TTFT / duration distribution (``response_latency_values``, and per 100 ms in
  ``response_latency_buckets``) so that percentiles are exact without sorting every answer;
* both: the per-vote style deltas of voted matchups (``pair_style_stats``). A matchup's delta
  needs its vote and both answers, which arrive in separate transactions in either order; each
  trigger takes a transaction-scoped advisory lock on the matchup, so the three writers
  serialise and whichever comes last counts the delta, exactly once.

``arena_rebuild_analytics()`` recounts all six from scratch, and ``arena_rebuild_vote_stats()``
(migration 0002) now calls it too, so the one documented recount after a bulk load with disabled
triggers covers every derived counter. Deleting responses or matchups is not followed by the
triggers' style and vote counts (as with 0002): recount after such deletes.

Revision ID: 0003
Revises: 0002
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0003"
down_revision: str | None = "0002"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# Two-key advisory locks live in their own space; this class id ('ARNA') marks the matchup locks.
_LOCK_CLASS = 1095913025

_OUTCOMES = ("left_wins", "right_wins", "both_good", "both_bad", "skips")
_STYLE_SUMS = tuple(
    f"{feature}_{kind}"
    for feature in ("verbosity", "formatting", "ttft", "duration")
    for kind in ("sum", "squares")
)


def _add(table: str, columns: Sequence[str]) -> str:
    return ", ".join(f"{c} = {table}.{c} + EXCLUDED.{c}" for c in columns)


_COUNT_STYLE = f"""
CREATE FUNCTION arena_count_style_deltas(m uuid, delta integer) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- Nothing is inserted unless both answers are stored, neither failed and both have a TTFT:
  -- the votes the style pass of the rating process can use.
  INSERT INTO pair_style_stats AS s (model_lo, model_hi, votes, {", ".join(_STYLE_SUMS)})
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), delta,
         delta * d.tokens, delta * d.tokens * d.tokens,
         delta * d.markdown, delta * d.markdown * d.markdown,
         delta * d.ttft, delta * d.ttft * d.ttft,
         delta * d.duration, delta * d.duration * d.duration
    FROM responses ra
    JOIN responses rb ON rb.matchup_id = ra.matchup_id AND rb.slot = 'B'
    CROSS JOIN LATERAL (SELECT
      (ra.output_token_count - rb.output_token_count)::float8 AS tokens,
      ra.markdown_density - rb.markdown_density AS markdown,
      (ra.ttft_ms - rb.ttft_ms)::float8 AS ttft,
      (ra.stream_duration_ms - rb.stream_duration_ms)::float8 AS duration) AS d
   WHERE ra.matchup_id = m AND ra.slot = 'A'
     AND ra.error IS NULL AND rb.error IS NULL
     AND ra.ttft_ms IS NOT NULL AND rb.ttft_ms IS NOT NULL
  ON CONFLICT (model_lo, model_hi) DO UPDATE SET {_add("s", ("votes", *_STYLE_SUMS))};
END $$;
"""

_COUNT_MATCHUP = """
CREATE FUNCTION arena_count_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, matchups)
  VALUES (rec.slot_a_model_id, rec.slot_b_model_id, delta)
  ON CONFLICT (slot_a_model_id, slot_b_model_id) DO UPDATE SET matchups = s.matchups + delta;
  RETURN NULL;
END $$;
"""

_ROLL_UP_VOTE = f"""
CREATE FUNCTION arena_roll_up_vote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec preferences%ROWTYPE;
  delta integer;
  a uuid;
  b uuid;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  SELECT slot_a_model_id, slot_b_model_id INTO a, b FROM matchups WHERE id = rec.matchup_id;
  IF NOT FOUND THEN
    RETURN NULL;  -- the matchup went in the same statement (cascade); recount after bulk deletes
  END IF;
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, {", ".join(_OUTCOMES)})
  VALUES (a, b, delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
          delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
          delta * (rec.vote = 'skip')::int)
  ON CONFLICT (slot_a_model_id, slot_b_model_id) DO UPDATE SET {_add("s", _OUTCOMES)};
  -- Both models' rows, locked in model-id order so that concurrent votes cannot deadlock.
  INSERT INTO vote_activity AS s (bucket_start, model_id, {", ".join(_OUTCOMES)})
  SELECT date_trunc('hour', rec.created_at, 'UTC'), v.model_id,
         delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
         delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
         delta * (rec.vote = 'skip')::int
    FROM (VALUES (a), (b)) AS v (model_id)
   ORDER BY v.model_id
  ON CONFLICT (bucket_start, model_id) DO UPDATE SET {_add("s", _OUTCOMES)};
  IF rec.vote <> 'skip' THEN
    PERFORM pg_advisory_xact_lock({_LOCK_CLASS}, hashtext(rec.matchup_id::text));
    PERFORM arena_count_style_deltas(rec.matchup_id, delta);
  END IF;
  RETURN NULL;
END $$;
"""

_ROLL_UP_RESPONSE = f"""
CREATE FUNCTION arena_roll_up_response() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec responses%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  IF rec.error IS NULL THEN
    INSERT INTO model_response_stats AS s
           (model_id, responses, ttft_responses, output_tokens, markdown_density)
    VALUES (rec.model_id, delta, delta * (rec.ttft_ms IS NOT NULL)::int,
            delta * rec.output_token_count, delta * rec.markdown_density)
    ON CONFLICT (model_id) DO UPDATE SET
      {_add("s", ("responses", "ttft_responses", "output_tokens", "markdown_density"))};
    INSERT INTO response_latency_values AS s (model_id, metric, value_ms, responses)
    SELECT rec.model_id, v.metric, v.value_ms, delta
      FROM (VALUES ('duration', rec.stream_duration_ms), ('ttft', rec.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
    ON CONFLICT (model_id, metric, value_ms) DO UPDATE SET {_add("s", ("responses",))};
    INSERT INTO response_latency_buckets AS s (model_id, metric, bucket, responses)
    SELECT rec.model_id, v.metric, v.value_ms / 100, delta
      FROM (VALUES ('duration', rec.stream_duration_ms), ('ttft', rec.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
    ON CONFLICT (model_id, metric, bucket) DO UPDATE SET {_add("s", ("responses",))};
  END IF;
  IF TG_OP = 'INSERT' THEN
    -- Serialise with the matchup's vote and other answer; the last of the three counts.
    PERFORM pg_advisory_xact_lock({_LOCK_CLASS}, hashtext(rec.matchup_id::text));
    IF EXISTS (SELECT 1 FROM preferences WHERE matchup_id = rec.matchup_id AND vote <> 'skip')
    THEN
      PERFORM arena_count_style_deltas(rec.matchup_id, 1);
    END IF;
  END IF;
  RETURN NULL;
END $$;
"""

_REBUILD_ANALYTICS = f"""
CREATE FUNCTION arena_rebuild_analytics() RETURNS void LANGUAGE sql AS $$
  DELETE FROM pair_outcome_stats;
  DELETE FROM vote_activity;
  DELETE FROM pair_style_stats;
  DELETE FROM model_response_stats;
  DELETE FROM response_latency_buckets;
  DELETE FROM response_latency_values;
  INSERT INTO pair_outcome_stats
         (slot_a_model_id, slot_b_model_id, matchups, {", ".join(_OUTCOMES)})
  SELECT m.slot_a_model_id, m.slot_b_model_id, count(*),
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM matchups m LEFT JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2;
  INSERT INTO vote_activity (bucket_start, model_id, {", ".join(_OUTCOMES)})
  SELECT date_trunc('hour', p.created_at, 'UTC'), v.model_id,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2;
  INSERT INTO pair_style_stats (model_lo, model_hi, votes, {", ".join(_STYLE_SUMS)})
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), count(*),
         sum(d.tokens), sum(d.tokens * d.tokens), sum(d.markdown), sum(d.markdown * d.markdown),
         sum(d.ttft), sum(d.ttft * d.ttft), sum(d.duration), sum(d.duration * d.duration)
    FROM preferences p
    JOIN responses ra ON ra.matchup_id = p.matchup_id AND ra.slot = 'A'
    JOIN responses rb ON rb.matchup_id = p.matchup_id AND rb.slot = 'B'
    CROSS JOIN LATERAL (SELECT
      (ra.output_token_count - rb.output_token_count)::float8 AS tokens,
      ra.markdown_density - rb.markdown_density AS markdown,
      (ra.ttft_ms - rb.ttft_ms)::float8 AS ttft,
      (ra.stream_duration_ms - rb.stream_duration_ms)::float8 AS duration) AS d
   WHERE p.vote <> 'skip' AND ra.error IS NULL AND rb.error IS NULL
     AND ra.ttft_ms IS NOT NULL AND rb.ttft_ms IS NOT NULL
   GROUP BY 1, 2;
  INSERT INTO model_response_stats
         (model_id, responses, ttft_responses, output_tokens, markdown_density)
  SELECT model_id, count(*), count(ttft_ms), sum(output_token_count), sum(markdown_density)
    FROM responses WHERE error IS NULL
   GROUP BY 1;
  INSERT INTO response_latency_values (model_id, metric, value_ms, responses)
  SELECT model_id, 'duration', stream_duration_ms, count(*)
    FROM responses WHERE error IS NULL
   GROUP BY 1, 3
  UNION ALL
  SELECT model_id, 'ttft', ttft_ms, count(*)
    FROM responses WHERE error IS NULL AND ttft_ms IS NOT NULL
   GROUP BY 1, 3;
  INSERT INTO response_latency_buckets (model_id, metric, bucket, responses)
  SELECT model_id, metric, value_ms / 100, sum(responses)
    FROM response_latency_values
   GROUP BY 1, 2, 3;
$$;
"""

# The body of 0002's recount, kept verbatim, with this revision's recount appended.
_REBUILD_VOTE_STATS_BODY = """
  DELETE FROM model_vote_stats;
  DELETE FROM pair_vote_stats;
  INSERT INTO model_vote_stats (model_id, wins, losses, ties, skips)
  SELECT model_id, sum(w), sum(l), sum(t), sum(k) FROM (
    SELECT m.slot_a_model_id AS model_id, (p.vote = 'left')::int AS w,
           (p.vote = 'right')::int AS l, (p.vote IN ('both_good', 'both_bad'))::int AS t,
           (p.vote = 'skip')::int AS k
      FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    UNION ALL
    SELECT m.slot_b_model_id, (p.vote = 'right')::int, (p.vote = 'left')::int,
           (p.vote IN ('both_good', 'both_bad'))::int, (p.vote = 'skip')::int
      FROM preferences p JOIN matchups m ON m.id = p.matchup_id
  ) AS per_model GROUP BY model_id;
  INSERT INTO pair_vote_stats (model_lo, model_hi, games)
  SELECT LEAST(m.slot_a_model_id, m.slot_b_model_id),
         GREATEST(m.slot_a_model_id, m.slot_b_model_id), count(*)
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.vote <> 'skip'
   GROUP BY 1, 2;
"""

_REBUILD_EVERYTHING = f"""
CREATE OR REPLACE FUNCTION arena_rebuild_vote_stats() RETURNS void LANGUAGE sql AS $$
{_REBUILD_VOTE_STATS_BODY}
  SELECT arena_rebuild_analytics();
$$;
"""

_REBUILD_VOTES_ONLY = f"""
CREATE OR REPLACE FUNCTION arena_rebuild_vote_stats() RETURNS void LANGUAGE sql AS $$
{_REBUILD_VOTE_STATS_BODY}
$$;
"""


def _model_fk(table: str, column: str) -> sa.ForeignKeyConstraint:
    return sa.ForeignKeyConstraint(
        [column], ["models.id"], name=op.f(f"{table}_{column}_fkey"), ondelete="CASCADE"
    )


def _counter(name: str, type_: sa.types.TypeEngine[object] | None = None) -> sa.Column[object]:
    return sa.Column(name, type_ or sa.Integer(), server_default=sa.text("0"), nullable=False)


def upgrade() -> None:
    op.create_table(
        "pair_outcome_stats",
        sa.Column("slot_a_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_b_model_id", sa.UUID(), nullable=False),
        _counter("matchups"),
        *(_counter(c) for c in _OUTCOMES),
        _model_fk("pair_outcome_stats", "slot_a_model_id"),
        _model_fk("pair_outcome_stats", "slot_b_model_id"),
        sa.PrimaryKeyConstraint(
            "slot_a_model_id", "slot_b_model_id", name=op.f("pair_outcome_stats_pkey")
        ),
    )
    op.create_table(
        "vote_activity",
        sa.Column("bucket_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        *(_counter(c) for c in _OUTCOMES),
        _model_fk("vote_activity", "model_id"),
        sa.PrimaryKeyConstraint("bucket_start", "model_id", name=op.f("vote_activity_pkey")),
    )
    op.create_table(
        "pair_style_stats",
        sa.Column("model_lo", sa.UUID(), nullable=False),
        sa.Column("model_hi", sa.UUID(), nullable=False),
        _counter("votes"),
        *(_counter(c, sa.Float()) for c in _STYLE_SUMS),
        sa.CheckConstraint(
            "model_lo < model_hi", name=op.f("pair_style_stats_canonical_order_check")
        ),
        _model_fk("pair_style_stats", "model_lo"),
        _model_fk("pair_style_stats", "model_hi"),
        sa.PrimaryKeyConstraint("model_lo", "model_hi", name=op.f("pair_style_stats_pkey")),
    )
    op.create_table(
        "model_response_stats",
        sa.Column("model_id", sa.UUID(), nullable=False),
        _counter("responses"),
        _counter("ttft_responses"),
        _counter("output_tokens", sa.BigInteger()),
        _counter("markdown_density", sa.Float()),
        _model_fk("model_response_stats", "model_id"),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_response_stats_pkey")),
    )
    for table, column in (
        ("response_latency_values", "value_ms"),
        ("response_latency_buckets", "bucket"),
    ):
        op.create_table(
            table,
            sa.Column("model_id", sa.UUID(), nullable=False),
            sa.Column("metric", sa.Text(), nullable=False),
            sa.Column(column, sa.Integer(), nullable=False),
            _counter("responses"),
            sa.CheckConstraint(
                "metric IN ('ttft', 'duration')", name=op.f(f"{table}_metric_check")
            ),
            _model_fk(table, "model_id"),
            sa.PrimaryKeyConstraint("model_id", "metric", column, name=op.f(f"{table}_pkey")),
        )
    op.execute(_COUNT_STYLE)
    op.execute(_COUNT_MATCHUP)
    op.execute(_ROLL_UP_VOTE)
    op.execute(_ROLL_UP_RESPONSE)
    op.execute(
        "CREATE TRIGGER matchups_count_matchup AFTER INSERT OR DELETE ON matchups "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_matchup()"
    )
    op.execute(
        "CREATE TRIGGER preferences_roll_up_vote AFTER INSERT OR DELETE ON preferences "
        "FOR EACH ROW EXECUTE FUNCTION arena_roll_up_vote()"
    )
    op.execute(
        "CREATE TRIGGER responses_roll_up_response AFTER INSERT OR DELETE ON responses "
        "FOR EACH ROW EXECUTE FUNCTION arena_roll_up_response()"
    )
    op.execute(_REBUILD_ANALYTICS)
    op.execute(_REBUILD_EVERYTHING)
    op.execute("SELECT arena_rebuild_analytics()")


def downgrade() -> None:
    op.execute(_REBUILD_VOTES_ONLY)
    op.execute("DROP TRIGGER responses_roll_up_response ON responses")
    op.execute("DROP TRIGGER preferences_roll_up_vote ON preferences")
    op.execute("DROP TRIGGER matchups_count_matchup ON matchups")
    op.execute("DROP FUNCTION arena_rebuild_analytics()")
    op.execute("DROP FUNCTION arena_roll_up_response()")
    op.execute("DROP FUNCTION arena_roll_up_vote()")
    op.execute("DROP FUNCTION arena_count_matchup()")
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer)")
    for table in (
        "response_latency_buckets",
        "response_latency_values",
        "model_response_stats",
        "pair_style_stats",
        "vote_activity",
        "pair_outcome_stats",
    ):
        op.drop_table(table)
