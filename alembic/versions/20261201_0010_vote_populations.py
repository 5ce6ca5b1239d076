"""vote summaries per method, so every read can ask for the human, the judge or all votes

Revision 0008 kept judge votes out of the summaries altogether. Now each vote summary is kept
per ``method`` (``human`` or ``judge``): ``model_vote_stats``, ``pair_vote_stats``,
``pair_outcome_stats``, ``vote_activity`` and ``pair_style_stats`` gain the column in their
keys, the triggers count every vote under its own method, and the readers sum the methods of
the population they are asked for (``?votes=human|judge|all``, human by default). The count of
matchups per pair (``pair_outcome_stats.matchups``) does not depend on votes: it stays on the
``human`` rows. ``model_population_ratings`` gains the ``judge`` and ``all`` populations.

The trigger and recount functions are replaced whole (their text, with the method added), the
0008 ``WHEN`` triggers by plain ones again, and everything is recounted once.

Revision ID: 0010
Revises: 0009
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0010"
down_revision: str | None = "0009"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

# table -> its key before this revision
_KEYED = {
    "model_vote_stats": ("model_id",),
    "pair_vote_stats": ("model_lo", "model_hi"),
    "pair_outcome_stats": ("slot_a_model_id", "slot_b_model_id"),
    "vote_activity": ("bucket_start", "model_id"),
    "pair_style_stats": ("model_lo", "model_hi"),
}
_OUTCOMES = ("left_wins", "right_wins", "both_good", "both_bad", "skips")
_STYLE_SUMS = tuple(
    f"{feature}_{kind}"
    for feature in ("verbosity", "formatting", "ttft", "duration")
    for kind in ("sum", "squares")
)
_LOCK_CLASS = 1095913025  # revision 0003's advisory lock class for a matchup's style deltas


def _add(alias: str, columns: Sequence[str]) -> str:
    return ", ".join(f"{c} = {alias}.{c} + EXCLUDED.{c}" for c in columns)


_COUNT_VOTE = """
CREATE OR REPLACE FUNCTION arena_count_vote() RETURNS trigger LANGUAGE plpgsql AS $$
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
  -- Rows are locked in model-id order so that concurrent votes can never deadlock.
  INSERT INTO model_vote_stats AS s (model_id, method, wins, losses, ties, skips)
  SELECT model_id, rec.method, w * delta, l * delta, t * delta, k * delta FROM (VALUES
    (a, (rec.vote = 'left')::int, (rec.vote = 'right')::int,
        (rec.vote IN ('both_good', 'both_bad'))::int, (rec.vote = 'skip')::int),
    (b, (rec.vote = 'right')::int, (rec.vote = 'left')::int,
        (rec.vote IN ('both_good', 'both_bad'))::int, (rec.vote = 'skip')::int)
  ) AS v (model_id, w, l, t, k)
  ORDER BY model_id
  ON CONFLICT (model_id, method) DO UPDATE SET
    wins = s.wins + EXCLUDED.wins, losses = s.losses + EXCLUDED.losses,
    ties = s.ties + EXCLUDED.ties, skips = s.skips + EXCLUDED.skips;
  IF rec.vote <> 'skip' THEN
    INSERT INTO pair_vote_stats AS p (model_lo, model_hi, method, games)
    VALUES (LEAST(a, b), GREATEST(a, b), rec.method, delta)
    ON CONFLICT (model_lo, model_hi, method) DO UPDATE SET games = p.games + EXCLUDED.games;
  END IF;
  RETURN NULL;
END $$;
"""

_STYLE_DELTAS = f"""
CREATE FUNCTION arena_count_style_deltas(m uuid, delta integer, voted_by text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- Nothing is inserted unless both answers are stored, neither failed and both have a TTFT:
  -- the votes the style pass of the rating process can use.
  INSERT INTO pair_style_stats AS s (model_lo, model_hi, method, votes, {", ".join(_STYLE_SUMS)})
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), voted_by, delta,
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
  ON CONFLICT (model_lo, model_hi, method) DO UPDATE SET {_add("s", ("votes", *_STYLE_SUMS))};
END $$;
"""

_ROLL_UP_VOTE = f"""
CREATE OR REPLACE FUNCTION arena_roll_up_vote() RETURNS trigger LANGUAGE plpgsql AS $$
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
  INSERT INTO pair_outcome_stats AS s
         (slot_a_model_id, slot_b_model_id, method, {", ".join(_OUTCOMES)})
  VALUES (a, b, rec.method, delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
          delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
          delta * (rec.vote = 'skip')::int)
  ON CONFLICT (slot_a_model_id, slot_b_model_id, method) DO UPDATE SET {_add("s", _OUTCOMES)};
  -- Both models' rows, locked in model-id order so that concurrent votes cannot deadlock.
  INSERT INTO vote_activity AS s (bucket_start, model_id, method, {", ".join(_OUTCOMES)})
  SELECT date_trunc('hour', rec.created_at, 'UTC'), v.model_id, rec.method,
         delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
         delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
         delta * (rec.vote = 'skip')::int
    FROM (VALUES (a), (b)) AS v (model_id)
   ORDER BY v.model_id
  ON CONFLICT (bucket_start, model_id, method) DO UPDATE SET {_add("s", _OUTCOMES)};
  IF rec.vote <> 'skip' THEN
    PERFORM pg_advisory_xact_lock({_LOCK_CLASS}, hashtext(rec.matchup_id::text));
    PERFORM arena_count_style_deltas(rec.matchup_id, delta, rec.method);
  END IF;
  RETURN NULL;
END $$;
"""

_COUNT_MATCHUP = """
CREATE OR REPLACE FUNCTION arena_count_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  -- A pair's matchups are counted on its human row, whoever votes on them.
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, method, matchups)
  VALUES (rec.slot_a_model_id, rec.slot_b_model_id, 'human', delta)
  ON CONFLICT (slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + delta;
  RETURN NULL;
END $$;
"""

# The answer trigger's last step: the style deltas of a matchup whose vote came first.
_EARLIER_VOTE_OLD = """    IF EXISTS (SELECT 1 FROM preferences WHERE matchup_id = rec.matchup_id AND vote <> 'skip' AND method = 'human')
    THEN
      PERFORM arena_count_style_deltas(rec.matchup_id, 1);
    END IF;"""
_EARLIER_VOTE_NEW = """    SELECT method INTO voted_by FROM preferences
     WHERE matchup_id = rec.matchup_id AND vote <> 'skip';
    IF FOUND THEN
      PERFORM arena_count_style_deltas(rec.matchup_id, 1, voted_by);
    END IF;"""

_REBUILD_VOTE_STATS = """
CREATE OR REPLACE FUNCTION arena_rebuild_vote_stats() RETURNS void LANGUAGE sql AS $$
  DELETE FROM model_vote_stats;
  DELETE FROM pair_vote_stats;
  INSERT INTO model_vote_stats (model_id, method, wins, losses, ties, skips)
  SELECT model_id, method, sum(w), sum(l), sum(t), sum(k) FROM (
    SELECT m.slot_a_model_id AS model_id, p.method, (p.vote = 'left')::int AS w,
           (p.vote = 'right')::int AS l, (p.vote IN ('both_good', 'both_bad'))::int AS t,
           (p.vote = 'skip')::int AS k
      FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    UNION ALL
    SELECT m.slot_b_model_id, p.method, (p.vote = 'right')::int, (p.vote = 'left')::int,
           (p.vote IN ('both_good', 'both_bad'))::int, (p.vote = 'skip')::int
      FROM preferences p JOIN matchups m ON m.id = p.matchup_id
  ) AS per_model GROUP BY model_id, method;
  INSERT INTO pair_vote_stats (model_lo, model_hi, method, games)
  SELECT LEAST(m.slot_a_model_id, m.slot_b_model_id),
         GREATEST(m.slot_a_model_id, m.slot_b_model_id), p.method, count(*)
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.vote <> 'skip'
   GROUP BY 1, 2, 3;
  SELECT arena_rebuild_analytics();
$$;
"""


def _count(vote: str, method: str) -> str:
    return f"count(*) FILTER (WHERE p.method = '{method}' AND p.vote = '{vote}')"


_VOTES = ("left", "right", "both_good", "both_bad", "skip")

_REBUILD_ANALYTICS = f"""
CREATE OR REPLACE FUNCTION arena_rebuild_analytics() RETURNS void LANGUAGE sql AS $$
  DELETE FROM pair_outcome_stats;
  DELETE FROM vote_activity;
  DELETE FROM pair_style_stats;
  DELETE FROM model_response_stats;
  DELETE FROM response_latency_buckets;
  DELETE FROM response_latency_values;
  INSERT INTO pair_outcome_stats
         (slot_a_model_id, slot_b_model_id, method, matchups, {", ".join(_OUTCOMES)})
  SELECT m.slot_a_model_id, m.slot_b_model_id, 'human', count(*),
         {", ".join(_count(v, "human") for v in _VOTES)}
    FROM matchups m LEFT JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2
  UNION ALL
  SELECT m.slot_a_model_id, m.slot_b_model_id, 'judge', 0,
         {", ".join(_count(v, "judge") for v in _VOTES)}
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.method = 'judge'
   GROUP BY 1, 2;
  INSERT INTO vote_activity (bucket_start, model_id, method, {", ".join(_OUTCOMES)})
  SELECT date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2, 3;
  INSERT INTO pair_style_stats (model_lo, model_hi, method, votes, {", ".join(_STYLE_SUMS)})
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), p.method, count(*),
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
   GROUP BY 1, 2, 3;
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


# The functions as revision 0008 left them (the downgrade puts them back): 0002's and 0003's as
# the database prints them (hence the long lines), with 0008's recounts reading human votes only.
_BEFORE = {
    "arena_count_vote": """
CREATE OR REPLACE FUNCTION public.arena_count_vote()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
  -- Rows are locked in model-id order so that concurrent votes can never deadlock.
  INSERT INTO model_vote_stats AS s (model_id, wins, losses, ties, skips)
  SELECT model_id, w * delta, l * delta, t * delta, k * delta FROM (VALUES
    (a, (rec.vote = 'left')::int, (rec.vote = 'right')::int,
        (rec.vote IN ('both_good', 'both_bad'))::int, (rec.vote = 'skip')::int),
    (b, (rec.vote = 'right')::int, (rec.vote = 'left')::int,
        (rec.vote IN ('both_good', 'both_bad'))::int, (rec.vote = 'skip')::int)
  ) AS v (model_id, w, l, t, k)
  ORDER BY model_id
  ON CONFLICT (model_id) DO UPDATE SET
    wins = s.wins + EXCLUDED.wins, losses = s.losses + EXCLUDED.losses,
    ties = s.ties + EXCLUDED.ties, skips = s.skips + EXCLUDED.skips;
  IF rec.vote <> 'skip' THEN
    INSERT INTO pair_vote_stats AS p (model_lo, model_hi, games)
    VALUES (LEAST(a, b), GREATEST(a, b), delta)
    ON CONFLICT (model_lo, model_hi) DO UPDATE SET games = p.games + EXCLUDED.games;
  END IF;
  RETURN NULL;
END $function$;
""",
    "arena_roll_up_vote": """
CREATE OR REPLACE FUNCTION public.arena_roll_up_vote()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
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
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, left_wins, right_wins, both_good, both_bad, skips)
  VALUES (a, b, delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
          delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
          delta * (rec.vote = 'skip')::int)
  ON CONFLICT (slot_a_model_id, slot_b_model_id) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  -- Both models' rows, locked in model-id order so that concurrent votes cannot deadlock.
  INSERT INTO vote_activity AS s (bucket_start, model_id, left_wins, right_wins, both_good, both_bad, skips)
  SELECT date_trunc('hour', rec.created_at, 'UTC'), v.model_id,
         delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
         delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
         delta * (rec.vote = 'skip')::int
    FROM (VALUES (a), (b)) AS v (model_id)
   ORDER BY v.model_id
  ON CONFLICT (bucket_start, model_id) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  IF rec.vote <> 'skip' THEN
    PERFORM pg_advisory_xact_lock(1095913025, hashtext(rec.matchup_id::text));
    PERFORM arena_count_style_deltas(rec.matchup_id, delta);
  END IF;
  RETURN NULL;
END $function$;
""",
    "arena_count_style_deltas": """
CREATE FUNCTION public.arena_count_style_deltas(m uuid, delta integer)
 RETURNS void
 LANGUAGE plpgsql
AS $function$
BEGIN
  -- Nothing is inserted unless both answers are stored, neither failed and both have a TTFT:
  -- the votes the style pass of the rating process can use.
  INSERT INTO pair_style_stats AS s (model_lo, model_hi, votes, verbosity_sum, verbosity_squares, formatting_sum, formatting_squares, ttft_sum, ttft_squares, duration_sum, duration_squares)
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
  ON CONFLICT (model_lo, model_hi) DO UPDATE SET votes = s.votes + EXCLUDED.votes, verbosity_sum = s.verbosity_sum + EXCLUDED.verbosity_sum, verbosity_squares = s.verbosity_squares + EXCLUDED.verbosity_squares, formatting_sum = s.formatting_sum + EXCLUDED.formatting_sum, formatting_squares = s.formatting_squares + EXCLUDED.formatting_squares, ttft_sum = s.ttft_sum + EXCLUDED.ttft_sum, ttft_squares = s.ttft_squares + EXCLUDED.ttft_squares, duration_sum = s.duration_sum + EXCLUDED.duration_sum, duration_squares = s.duration_squares + EXCLUDED.duration_squares;
END $function$;
""",
    "arena_count_matchup": """
CREATE OR REPLACE FUNCTION public.arena_count_matchup()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, matchups)
  VALUES (rec.slot_a_model_id, rec.slot_b_model_id, delta)
  ON CONFLICT (slot_a_model_id, slot_b_model_id) DO UPDATE SET matchups = s.matchups + delta;
  RETURN NULL;
END $function$;
""",
    "arena_rebuild_vote_stats": """
CREATE OR REPLACE FUNCTION public.arena_rebuild_vote_stats()
 RETURNS void
 LANGUAGE sql
AS $function$

  DELETE FROM model_vote_stats;
  DELETE FROM pair_vote_stats;
  INSERT INTO model_vote_stats (model_id, wins, losses, ties, skips)
  SELECT model_id, sum(w), sum(l), sum(t), sum(k) FROM (
    SELECT m.slot_a_model_id AS model_id, (p.vote = 'left')::int AS w,
           (p.vote = 'right')::int AS l, (p.vote IN ('both_good', 'both_bad'))::int AS t,
           (p.vote = 'skip')::int AS k
      FROM (SELECT * FROM preferences WHERE method = 'human') p JOIN matchups m ON m.id = p.matchup_id
    UNION ALL
    SELECT m.slot_b_model_id, (p.vote = 'right')::int, (p.vote = 'left')::int,
           (p.vote IN ('both_good', 'both_bad'))::int, (p.vote = 'skip')::int
      FROM (SELECT * FROM preferences WHERE method = 'human') p JOIN matchups m ON m.id = p.matchup_id
  ) AS per_model GROUP BY model_id;
  INSERT INTO pair_vote_stats (model_lo, model_hi, games)
  SELECT LEAST(m.slot_a_model_id, m.slot_b_model_id),
         GREATEST(m.slot_a_model_id, m.slot_b_model_id), count(*)
    FROM (SELECT * FROM preferences WHERE method = 'human') p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.vote <> 'skip'
   GROUP BY 1, 2;

  SELECT arena_rebuild_analytics();
$function$;
""",
    "arena_rebuild_analytics": """
CREATE OR REPLACE FUNCTION public.arena_rebuild_analytics()
 RETURNS void
 LANGUAGE sql
AS $function$
  DELETE FROM pair_outcome_stats;
  DELETE FROM vote_activity;
  DELETE FROM pair_style_stats;
  DELETE FROM model_response_stats;
  DELETE FROM response_latency_buckets;
  DELETE FROM response_latency_values;
  INSERT INTO pair_outcome_stats
         (slot_a_model_id, slot_b_model_id, matchups, left_wins, right_wins, both_good, both_bad, skips)
  SELECT m.slot_a_model_id, m.slot_b_model_id, count(*),
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM matchups m LEFT JOIN (SELECT * FROM preferences WHERE method = 'human') p ON p.matchup_id = m.id
   GROUP BY 1, 2;
  INSERT INTO vote_activity (bucket_start, model_id, left_wins, right_wins, both_good, both_bad, skips)
  SELECT date_trunc('hour', p.created_at, 'UTC'), v.model_id,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM (SELECT * FROM preferences WHERE method = 'human') p JOIN matchups m ON m.id = p.matchup_id
   CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2;
  INSERT INTO pair_style_stats (model_lo, model_hi, votes, verbosity_sum, verbosity_squares, formatting_sum, formatting_squares, ttft_sum, ttft_squares, duration_sum, duration_squares)
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), count(*),
         sum(d.tokens), sum(d.tokens * d.tokens), sum(d.markdown), sum(d.markdown * d.markdown),
         sum(d.ttft), sum(d.ttft * d.ttft), sum(d.duration), sum(d.duration * d.duration)
    FROM (SELECT * FROM preferences WHERE method = 'human') p
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
$function$;
""",
}


_VOTE_TRIGGERS = (
    ("preferences_count_vote", "arena_count_vote"),
    ("preferences_roll_up_vote", "arena_roll_up_vote"),
)


def _rewrite_roll_up_response() -> None:
    definition = (
        op.get_bind()
        .execute(sa.text("SELECT pg_get_functiondef(CAST('arena_roll_up_response' AS regproc))"))
        .scalar_one()
    )
    assert _EARLIER_VOTE_OLD in definition
    definition = definition.replace(_EARLIER_VOTE_OLD, _EARLIER_VOTE_NEW)
    definition = definition.replace("  delta integer;\n", "  delta integer;\n  voted_by text;\n", 1)
    op.execute(definition)


def upgrade() -> None:
    for table, key in _KEYED.items():
        op.add_column(
            table, sa.Column("method", sa.Text(), server_default=sa.text("'human'"), nullable=False)
        )
        op.create_check_constraint(
            op.f(f"{table}_method_check"), table, "method IN ('human', 'judge')"
        )
        op.drop_constraint(op.f(f"{table}_pkey"), table, type_="primary")
        op.create_primary_key(op.f(f"{table}_pkey"), table, [*key, "method"])
    op.drop_constraint(
        op.f("model_population_ratings_population_check"), "model_population_ratings", "check"
    )
    op.create_check_constraint(
        op.f("model_population_ratings_population_check"),
        "model_population_ratings",
        "population IN ('with_named', 'judge', 'all')",
    )
    for trigger, _ in _VOTE_TRIGGERS:
        for event in ("insert", "delete"):
            op.execute(f"DROP TRIGGER {trigger}_{event} ON preferences")
    op.execute(_STYLE_DELTAS)
    for statement in (_COUNT_VOTE, _ROLL_UP_VOTE, _COUNT_MATCHUP):
        op.execute(statement)
    _rewrite_roll_up_response()
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer)")
    op.execute(_REBUILD_ANALYTICS)
    op.execute(_REBUILD_VOTE_STATS)
    for trigger, function in _VOTE_TRIGGERS:
        op.execute(
            f"CREATE TRIGGER {trigger} AFTER INSERT OR DELETE ON preferences "
            f"FOR EACH ROW EXECUTE FUNCTION {function}()"
        )
    op.execute("SELECT arena_rebuild_vote_stats()")
    # Lets the rating process ask whether any judge vote exists without reading the rest.
    op.create_index(
        "preferences_judge_idx",
        "preferences",
        ["id"],
        postgresql_where=sa.text("method = 'judge'"),
    )


def downgrade() -> None:
    op.drop_index("preferences_judge_idx", table_name="preferences")
    for trigger, _ in _VOTE_TRIGGERS:
        op.execute(f"DROP TRIGGER {trigger} ON preferences")
    op.execute("DELETE FROM model_population_ratings WHERE population IN ('judge', 'all')")
    op.drop_constraint(
        op.f("model_population_ratings_population_check"), "model_population_ratings", "check"
    )
    op.create_check_constraint(
        op.f("model_population_ratings_population_check"),
        "model_population_ratings",
        "population IN ('with_named')",
    )
    definition = (
        op.get_bind()
        .execute(sa.text("SELECT pg_get_functiondef(CAST('arena_roll_up_response' AS regproc))"))
        .scalar_one()
    )
    definition = definition.replace(_EARLIER_VOTE_NEW, _EARLIER_VOTE_OLD)
    op.execute(definition.replace("  voted_by text;\n", "", 1))
    op.execute(_BEFORE["arena_count_style_deltas"])
    for name in ("arena_count_vote", "arena_roll_up_vote", "arena_count_matchup"):
        op.execute(_BEFORE[name])
    op.execute("DROP FUNCTION arena_count_style_deltas(uuid, integer, text)")
    for table, key in _KEYED.items():
        op.execute(f"DELETE FROM {table} WHERE method <> 'human'")
        op.drop_constraint(op.f(f"{table}_pkey"), table, type_="primary")
        op.create_primary_key(op.f(f"{table}_pkey"), table, list(key))
        op.drop_constraint(op.f(f"{table}_method_check"), table, type_="check")
        op.drop_column(table, "method")
    op.execute(_BEFORE["arena_rebuild_analytics"])
    op.execute(_BEFORE["arena_rebuild_vote_stats"])
    for trigger, function in _VOTE_TRIGGERS:
        for event, row in (("INSERT", "NEW"), ("DELETE", "OLD")):
            op.execute(
                f"CREATE TRIGGER {trigger}_{event.lower()} AFTER {event} ON preferences "
                f"FOR EACH ROW WHEN ({row}.method = 'human') EXECUTE FUNCTION {function}()"
            )
