"""vote summaries per slice of prompts, so every vote read can be cut by category or language

A *slice* is one of a round's categories (``coding``, ``math``, ...) or its language as
``language:<code>`` (``arena_prompt_slices``; the same rule as ``arena_api.core.categories``).
Six summaries count per slice what the summaries of revisions 0003 and 0007 count over
everything, so that every dashboard read can be cut to a slice at the same cost:

- ``category_pair_stats`` (matchups and outcomes per ordered pair and method; the leaderboard's
  records, the totals, head-to-head and slot records follow from it) and
  ``category_vote_activity`` (votes per UTC hour and model), from the votes;
- ``category_response_stats``, ``category_latency_values`` and ``category_latency_buckets``
  (answer counts, token and Markdown sums, exact latency distributions) and
  ``category_cost_daily`` (tokens and cost per UTC day and model), from the answers.

Triggers keep them: a vote and an answer count under their round's slices; a round counts a
matchup under each; and when a round's categories or language change (``arena db
backfill-categories`` classifies old rounds), its matchup, vote and answers move from the old
slices to the new ones, set-based per statement (a statement trigger over its transition
tables), so a backfill batch costs a few grouped statements rather than dozens per round. The
recount ``arena_rebuild_category_stats()`` is part of ``arena_rebuild_vote_stats()``.

The rating process fits one board per slice with enough votes; those boards live beside the
other populations in ``model_population_ratings`` and ``model_rating_history`` as
``category:<slice>``.

Revision ID: 0014
Revises: 0013
Create Date: 2026-12-01
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0014"
down_revision: str | None = "0013"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_OUTCOMES = ("left_wins", "right_wins", "both_good", "both_bad", "skips")
_ANSWER_SUMS = ("responses", "ttft_responses", "output_tokens", "markdown_density")
_COST_SUMS = (
    "responses",
    "priced_responses",
    "estimated_responses",
    "input_tokens",
    "output_tokens",
    "cost_usd",
)
_VOTES = ("left", "right", "both_good", "both_bad", "skip")


def _add(alias: str, columns: Sequence[str]) -> str:
    return ", ".join(f"{c} = {alias}.{c} + EXCLUDED.{c}" for c in columns)


def _deltas(rec: str) -> str:
    return ", ".join(f"delta * ({rec}.vote = '{v}')::int" for v in _VOTES)


_SLICES = """
CREATE FUNCTION arena_prompt_slices(categories text[], language text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(categories, '{}'::text[])
      || CASE WHEN language IS NULL OR language = 'und' THEN '{}'::text[]
              ELSE ARRAY['language:' || language] END
$$;
"""

# Rows are locked in (slice, model) order, the pair summary before the activity, so concurrent
# votes and a backfill can never deadlock.
_COUNT_VOTES = f"""
CREATE FUNCTION arena_count_category_votes(
  rec preferences, a uuid, b uuid, slices text[], delta integer
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, {", ".join(_OUTCOMES)})
  SELECT c.slice, a, b, rec.method, {_deltas("rec")}
    FROM unnest(slices) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET {_add("s", _OUTCOMES)};
  INSERT INTO category_vote_activity AS s
         (category, bucket_start, model_id, method, {", ".join(_OUTCOMES)})
  SELECT c.slice, date_trunc('hour', rec.created_at, 'UTC'), v.model_id, rec.method,
         {_deltas("rec")}
    FROM unnest(slices) AS c (slice) CROSS JOIN (VALUES (a), (b)) AS v (model_id)
   ORDER BY c.slice, v.model_id
  ON CONFLICT (category, bucket_start, model_id, method) DO UPDATE SET {_add("s", _OUTCOMES)};
END $$;
"""

_COUNT_VOTE = """
CREATE FUNCTION arena_count_category_vote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec preferences%ROWTYPE;
  delta integer;
  a uuid;
  b uuid;
  cut text[];
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  SELECT slot_a_model_id, slot_b_model_id, arena_prompt_slices(categories, language)
    INTO a, b, cut FROM matchups WHERE id = rec.matchup_id;
  IF NOT FOUND OR cardinality(cut) = 0 THEN
    RETURN NULL;  -- gone with its matchup (recount after bulk deletes), or in no slice
  END IF;
  PERFORM arena_count_category_votes(rec, a, b, cut, delta);
  RETURN NULL;
END $$;
"""

# What one answer adds to its slices (revision 0003's answer summaries and 0007's cost, per
# slice); rows locked in (table, slice, metric, value) order.
_COUNT_ANSWER = f"""
CREATE FUNCTION arena_count_category_answer(r responses, slices text[], d integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF r.error IS NULL THEN
    INSERT INTO category_response_stats AS s (category, model_id, {", ".join(_ANSWER_SUMS)})
    SELECT c.slice, r.model_id, d, d * (r.ttft_ms IS NOT NULL)::int, d * r.output_token_count,
           d * r.markdown_density
      FROM unnest(slices) AS c (slice)
     ORDER BY c.slice
    ON CONFLICT (category, model_id) DO UPDATE SET {_add("s", _ANSWER_SUMS)};
    INSERT INTO category_latency_values AS s (category, model_id, metric, value_ms, responses)
    SELECT c.slice, r.model_id, v.metric, v.value_ms, d
      FROM unnest(slices) AS c (slice)
     CROSS JOIN (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
     ORDER BY c.slice, v.metric
    ON CONFLICT (category, model_id, metric, value_ms) DO UPDATE SET {_add("s", ("responses",))};
    INSERT INTO category_latency_buckets AS s (category, model_id, metric, bucket, responses)
    SELECT c.slice, r.model_id, v.metric, v.value_ms / 100, d
      FROM unnest(slices) AS c (slice)
     CROSS JOIN (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
     ORDER BY c.slice, v.metric
    ON CONFLICT (category, model_id, metric, bucket) DO UPDATE SET {_add("s", ("responses",))};
  END IF;
  INSERT INTO category_cost_daily AS s (category, day, model_id, {", ".join(_COST_SUMS)})
  SELECT c.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id,
         d, d * (r.cost_usd IS NOT NULL)::int,
         d * (r.token_count_source = 'estimated' OR r.input_token_source = 'estimated')::int,
         d * r.input_token_count, d * r.output_token_count, d * coalesce(r.cost_usd, 0)
    FROM unnest(slices) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, day, model_id) DO UPDATE SET {_add("s", _COST_SUMS)};
END $$;
"""

_COUNT_RESPONSE = """
CREATE FUNCTION arena_count_category_response() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec responses%ROWTYPE;
  delta integer;
  cut text[];
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  SELECT arena_prompt_slices(categories, language) INTO cut
    FROM matchups WHERE id = rec.matchup_id;
  IF NOT FOUND OR cardinality(cut) = 0 THEN
    RETURN NULL;  -- gone with its matchup (recount after bulk deletes), or in no slice
  END IF;
  PERFORM arena_count_category_answer(rec, cut, delta);
  RETURN NULL;
END $$;
"""

_COUNT_MATCHUP = """
CREATE FUNCTION arena_count_category_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  -- A round's matchup is counted on the human rows, whoever votes on it.
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, matchups)
  SELECT c.slice, rec.slot_a_model_id, rec.slot_b_model_id, 'human', delta
    FROM unnest(arena_prompt_slices(rec.categories, rec.language)) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + EXCLUDED.matchups;
  RETURN NULL;
END $$;
"""

# Reclassified rounds (a backfill's batch) move from their old slices to their new ones in a
# few set-based statements over the statement's transition tables: each ``moved`` row is a
# round and a slice it leaves (-1) or joins (+1).
_MOVED = """
WITH moved AS (
  SELECT n.id, n.slot_a_model_id AS a, n.slot_b_model_id AS b, c.slice, c.d
    FROM old_rounds o JOIN new_rounds n ON n.id = o.id
   CROSS JOIN LATERAL (
     SELECT unnest(arena_prompt_slices(o.categories, o.language)), -1
     UNION ALL
     SELECT unnest(arena_prompt_slices(n.categories, n.language)), 1
   ) AS c (slice, d)
   WHERE arena_prompt_slices(o.categories, o.language)
         IS DISTINCT FROM arena_prompt_slices(n.categories, n.language)
)"""


def _outcome_sums(rec: str) -> str:
    return ", ".join(f"sum(m.d * ({rec}.vote = '{v}')::int)" for v in _VOTES)


_MOVE_ROUNDS = f"""
CREATE FUNCTION arena_move_category_rounds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  {_MOVED}
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, matchups)
  SELECT m.slice, m.a, m.b, 'human', sum(m.d) FROM moved m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + EXCLUDED.matchups;
  {_MOVED}
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, {", ".join(_OUTCOMES)})
  SELECT m.slice, m.a, m.b, p.method, {_outcome_sums("p")}
    FROM moved m JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET {_add("s", _OUTCOMES)};
  {_MOVED}
  INSERT INTO category_vote_activity AS s
         (category, bucket_start, model_id, method, {", ".join(_OUTCOMES)})
  SELECT m.slice, date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         {_outcome_sums("p")}
    FROM moved m JOIN preferences p ON p.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES (m.a), (m.b)) AS v (model_id)
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, bucket_start, model_id, method) DO UPDATE SET {_add("s", _OUTCOMES)};
  {_MOVED}
  INSERT INTO category_response_stats AS s (category, model_id, {", ".join(_ANSWER_SUMS)})
  SELECT m.slice, r.model_id, sum(m.d), sum(m.d * (r.ttft_ms IS NOT NULL)::int),
         sum(m.d * r.output_token_count), sum(m.d * r.markdown_density)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   WHERE r.error IS NULL
   GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (category, model_id) DO UPDATE SET {_add("s", _ANSWER_SUMS)};
  {_MOVED}
  INSERT INTO category_latency_values AS s (category, model_id, metric, value_ms, responses)
  SELECT m.slice, r.model_id, v.metric, v.value_ms, sum(m.d)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
         AS v (metric, value_ms)
   WHERE r.error IS NULL AND v.value_ms IS NOT NULL
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, model_id, metric, value_ms) DO UPDATE SET {_add("s", ("responses",))};
  {_MOVED}
  INSERT INTO category_latency_buckets AS s (category, model_id, metric, bucket, responses)
  SELECT m.slice, r.model_id, v.metric, v.value_ms / 100, sum(m.d)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
         AS v (metric, value_ms)
   WHERE r.error IS NULL AND v.value_ms IS NOT NULL
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, model_id, metric, bucket) DO UPDATE SET {_add("s", ("responses",))};
  {_MOVED}
  INSERT INTO category_cost_daily AS s (category, day, model_id, {", ".join(_COST_SUMS)})
  SELECT m.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id, sum(m.d),
         sum(m.d * (r.cost_usd IS NOT NULL)::int),
         sum(m.d * (r.token_count_source = 'estimated'
                    OR r.input_token_source = 'estimated')::int),
         sum(m.d * r.input_token_count), sum(m.d * r.output_token_count),
         sum(m.d * coalesce(r.cost_usd, 0))
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, day, model_id) DO UPDATE SET {_add("s", _COST_SUMS)};
  RETURN NULL;
END $$;
"""


def _count(vote: str, method: str) -> str:
    return f"count(*) FILTER (WHERE p.method = '{method}' AND p.vote = '{vote}')"


_REBUILD_CATEGORY_STATS = f"""
CREATE FUNCTION arena_rebuild_category_stats() RETURNS void LANGUAGE sql AS $$
  DELETE FROM category_pair_stats;
  DELETE FROM category_vote_activity;
  DELETE FROM category_response_stats;
  DELETE FROM category_latency_values;
  DELETE FROM category_latency_buckets;
  DELETE FROM category_cost_daily;
  INSERT INTO category_pair_stats
         (category, slot_a_model_id, slot_b_model_id, method, matchups, {", ".join(_OUTCOMES)})
  SELECT c.slice, m.slot_a_model_id, m.slot_b_model_id, 'human', count(*),
         {", ".join(_count(v, "human") for v in _VOTES)}
    FROM matchups m
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
    LEFT JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2, 3
  UNION ALL
  SELECT c.slice, m.slot_a_model_id, m.slot_b_model_id, 'judge', 0,
         {", ".join(_count(v, "judge") for v in _VOTES)}
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
   WHERE p.method = 'judge'
   GROUP BY 1, 2, 3;
  INSERT INTO category_vote_activity
         (category, bucket_start, model_id, method, {", ".join(_OUTCOMES)})
  SELECT c.slice, date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
    CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2, 3, 4;
  INSERT INTO category_response_stats (category, model_id, {", ".join(_ANSWER_SUMS)})
  SELECT c.slice, r.model_id, count(*), count(r.ttft_ms), sum(r.output_token_count),
         sum(r.markdown_density)
    FROM responses r JOIN matchups m ON m.id = r.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
   WHERE r.error IS NULL
   GROUP BY 1, 2;
  INSERT INTO category_latency_values (category, model_id, metric, value_ms, responses)
  SELECT c.slice, r.model_id, v.metric, v.value_ms, count(*)
    FROM responses r JOIN matchups m ON m.id = r.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
    CROSS JOIN LATERAL (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
          AS v (metric, value_ms)
   WHERE r.error IS NULL AND v.value_ms IS NOT NULL
   GROUP BY 1, 2, 3, 4;
  INSERT INTO category_latency_buckets (category, model_id, metric, bucket, responses)
  SELECT category, model_id, metric, value_ms / 100, sum(responses)
    FROM category_latency_values
   GROUP BY 1, 2, 3, 4;
  INSERT INTO category_cost_daily (category, day, model_id, {", ".join(_COST_SUMS)})
  SELECT c.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id, count(*),
         count(r.cost_usd),
         count(*) FILTER (WHERE r.token_count_source = 'estimated'
                             OR r.input_token_source = 'estimated'),
         sum(r.input_token_count), sum(r.output_token_count), coalesce(sum(r.cost_usd), 0)
    FROM responses r JOIN matchups m ON m.id = r.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
   GROUP BY 1, 2, 3;
$$;
"""

# Revision 0010's recount of every summary, with the slices' recount added (and, in the
# downgrade, without it).
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
  SELECT arena_rebuild_analytics();{extra}
$$;
"""

_POPULATION_CHECKS = {
    "model_population_ratings": "population IN ('with_named', 'judge', 'all')",
    "model_rating_history": "population IN ('human', 'judge', 'all')",
}
_CATEGORY_POPULATION = "population LIKE 'category:%'"


def _summary(table: str, key: Sequence[str], models: Sequence[str]) -> list[object]:
    """Counters, ``method`` and the constraints of a slice summary keyed by ``key``."""
    return [
        *(
            sa.Column(c, sa.Integer(), nullable=False, server_default=sa.text("0"))
            for c in _OUTCOMES
        ),
        sa.Column("method", sa.Text(), nullable=False, server_default=sa.text("'human'")),
        *(
            sa.ForeignKeyConstraint(
                [c], ["models.id"], name=op.f(f"{table}_{c}_fkey"), ondelete="CASCADE"
            )
            for c in models
        ),
        sa.PrimaryKeyConstraint(*key, "method", name=op.f(f"{table}_pkey")),
        sa.CheckConstraint("method IN ('human', 'judge')", name=op.f(f"{table}_method_check")),
    ]


def _answer_tables() -> None:
    """The answer-side slice summaries: revision 0003's and 0007's tables with a ``category``,
    in the column order of ``arena_api.db.tables``."""

    def table(name: str, key: Sequence[str], *columns: object) -> None:
        """``name`` keyed by ``key`` (``category``, ..., ``model_id``, ...)."""
        first = [
            sa.Column(c, {"day": sa.Date()}.get(c, sa.Text()), nullable=False)
            for c in key[: key.index("model_id")]
        ]
        op.create_table(
            name,
            *first,
            sa.Column("model_id", sa.UUID(), nullable=False),
            *columns,
            sa.ForeignKeyConstraint(
                ["model_id"], ["models.id"], name=op.f(f"{name}_model_id_fkey"), ondelete="CASCADE"
            ),
            sa.PrimaryKeyConstraint(*key, name=op.f(f"{name}_pkey")),
        )

    def counted(*names: str, kind: type[sa.types.TypeEngine[object]] = sa.Integer) -> list[object]:
        return [sa.Column(n, kind(), nullable=False, server_default=sa.text("0")) for n in names]

    table(
        "category_response_stats",
        ("category", "model_id"),
        *counted("responses", "ttft_responses"),
        *counted("output_tokens", kind=sa.BigInteger),
        *counted("markdown_density", kind=sa.Float),
    )
    for name, column in (
        ("category_latency_values", "value_ms"),
        ("category_latency_buckets", "bucket"),
    ):
        table(
            name,
            ("category", "model_id", "metric", column),
            sa.Column("metric", sa.Text(), nullable=False),
            sa.Column(column, sa.Integer(), nullable=False),
            *counted("responses"),
            sa.CheckConstraint("metric IN ('ttft', 'duration')", name=op.f(f"{name}_metric_check")),
        )
    table(
        "category_cost_daily",
        ("category", "day", "model_id"),
        *counted("responses", "priced_responses", "estimated_responses"),
        *counted("input_tokens", "output_tokens", kind=sa.BigInteger),
        sa.Column("cost_usd", sa.Numeric(20, 9), nullable=False, server_default=sa.text("0")),
    )


def upgrade() -> None:
    op.create_table(
        "category_pair_stats",
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("slot_a_model_id", sa.UUID(), nullable=False),
        sa.Column("slot_b_model_id", sa.UUID(), nullable=False),
        sa.Column("matchups", sa.Integer(), nullable=False, server_default=sa.text("0")),
        *_summary(
            "category_pair_stats",
            ("category", "slot_a_model_id", "slot_b_model_id"),
            ("slot_a_model_id", "slot_b_model_id"),
        ),
    )
    op.create_table(
        "category_vote_activity",
        sa.Column("category", sa.Text(), nullable=False),
        sa.Column("bucket_start", sa.DateTime(timezone=True), nullable=False),
        sa.Column("model_id", sa.UUID(), nullable=False),
        *_summary(
            "category_vote_activity", ("category", "bucket_start", "model_id"), ("model_id",)
        ),
    )
    _answer_tables()
    for statement in (
        _SLICES,
        _COUNT_VOTES,
        _COUNT_VOTE,
        _COUNT_ANSWER,
        _COUNT_RESPONSE,
        _COUNT_MATCHUP,
        _MOVE_ROUNDS,
        _REBUILD_CATEGORY_STATS,
        _REBUILD_VOTE_STATS.format(extra="\n  SELECT arena_rebuild_category_stats();"),
    ):
        op.execute(statement)
    op.execute(
        "CREATE TRIGGER preferences_count_category_vote AFTER INSERT OR DELETE ON preferences "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_category_vote()"
    )
    op.execute(
        "CREATE TRIGGER responses_count_category_answer AFTER INSERT OR DELETE ON responses "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_category_response()"
    )
    op.execute(
        "CREATE TRIGGER matchups_count_category_matchup AFTER INSERT OR DELETE ON matchups "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_category_matchup()"
    )
    op.execute(
        "CREATE TRIGGER matchups_move_category_rounds AFTER UPDATE ON matchups "
        "REFERENCING OLD TABLE AS old_rounds NEW TABLE AS new_rounds "
        "FOR EACH STATEMENT EXECUTE FUNCTION arena_move_category_rounds()"
    )
    for table, check in _POPULATION_CHECKS.items():
        op.drop_constraint(op.f(f"{table}_population_check"), table, type_="check")
        op.create_check_constraint(
            op.f(f"{table}_population_check"), table, f"{check} OR {_CATEGORY_POPULATION}"
        )
    op.execute("SELECT arena_rebuild_category_stats()")


def downgrade() -> None:
    for table, check in _POPULATION_CHECKS.items():
        op.execute(f"DELETE FROM {table} WHERE {_CATEGORY_POPULATION}")
        op.drop_constraint(op.f(f"{table}_population_check"), table, type_="check")
        op.create_check_constraint(op.f(f"{table}_population_check"), table, check)
    op.execute("DROP TRIGGER matchups_move_category_rounds ON matchups")
    op.execute("DROP TRIGGER matchups_count_category_matchup ON matchups")
    op.execute("DROP TRIGGER preferences_count_category_vote ON preferences")
    op.execute("DROP TRIGGER responses_count_category_answer ON responses")
    op.execute(_REBUILD_VOTE_STATS.format(extra=""))
    for function in (
        "arena_rebuild_category_stats()",
        "arena_move_category_rounds()",
        "arena_count_category_matchup()",
        "arena_count_category_vote()",
        "arena_count_category_response()",
        "arena_count_category_answer(responses, text[], integer)",
        "arena_count_category_votes(preferences, uuid, uuid, text[], integer)",
        "arena_prompt_slices(text[], text)",
    ):
        op.execute(f"DROP FUNCTION {function}")
    for table in (
        "category_cost_daily",
        "category_latency_buckets",
        "category_latency_values",
        "category_response_stats",
    ):
        op.drop_table(table)
    op.drop_table("category_vote_activity")
    op.drop_table("category_pair_stats")
