"""vote summaries per slice of prompts, so every vote read can be cut by category or language

A *slice* is one of a round's categories (``coding``, ``math``, ...) or its language as
``language:<code>`` (``arena_prompt_slices``; the same rule as ``arena_api.core.categories``).
Two summaries count the votes per slice, as ``pair_outcome_stats`` and ``vote_activity`` do for
all votes: ``category_pair_stats`` (matchups and outcomes per ordered pair and method; the
leaderboard's records, the totals, head-to-head and slot records follow from it) and
``category_vote_activity`` (votes per UTC hour and model).

Triggers keep them: a vote counts under its round's slices; a round counts a matchup under each;
and when a round's categories or language change (``arena db backfill-categories`` classifies
old rounds), its matchup and vote move from the old slices to the new ones. The recount
``arena_rebuild_category_stats()`` is part of ``arena_rebuild_vote_stats()``.

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

_COUNT_ROUND = """
CREATE FUNCTION arena_count_category_round(
  m uuid, a uuid, b uuid, slices text[], delta integer, with_vote boolean
) RETURNS void LANGUAGE plpgsql AS $$
DECLARE
  vote preferences%ROWTYPE;
BEGIN
  IF cardinality(slices) = 0 THEN RETURN; END IF;
  -- A round's matchup is counted on the human rows, whoever votes on it.
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, matchups)
  SELECT c.slice, a, b, 'human', delta FROM unnest(slices) AS c (slice) ORDER BY c.slice
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + EXCLUDED.matchups;
  IF with_vote THEN
    SELECT * INTO vote FROM preferences WHERE matchup_id = m;
    IF FOUND THEN
      PERFORM arena_count_category_votes(vote, a, b, slices, delta);
    END IF;
  END IF;
END $$;
"""

_COUNT_MATCHUP = """
CREATE FUNCTION arena_count_category_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  IF TG_OP = 'INSERT' THEN
    PERFORM arena_count_category_round(NEW.id, NEW.slot_a_model_id, NEW.slot_b_model_id,
      arena_prompt_slices(NEW.categories, NEW.language), 1, false);
  ELSIF TG_OP = 'DELETE' THEN
    PERFORM arena_count_category_round(OLD.id, OLD.slot_a_model_id, OLD.slot_b_model_id,
      arena_prompt_slices(OLD.categories, OLD.language), -1, false);
  ELSE  -- reclassified: the round and its vote move from the old slices to the new
    PERFORM arena_count_category_round(OLD.id, OLD.slot_a_model_id, OLD.slot_b_model_id,
      arena_prompt_slices(OLD.categories, OLD.language), -1, true);
    PERFORM arena_count_category_round(NEW.id, NEW.slot_a_model_id, NEW.slot_b_model_id,
      arena_prompt_slices(NEW.categories, NEW.language), 1, true);
  END IF;
  RETURN NULL;
END $$;
"""


def _count(vote: str, method: str) -> str:
    return f"count(*) FILTER (WHERE p.method = '{method}' AND p.vote = '{vote}')"


_REBUILD_CATEGORY_STATS = f"""
CREATE FUNCTION arena_rebuild_category_stats() RETURNS void LANGUAGE sql AS $$
  DELETE FROM category_pair_stats;
  DELETE FROM category_vote_activity;
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
    for statement in (
        _SLICES,
        _COUNT_VOTES,
        _COUNT_VOTE,
        _COUNT_ROUND,
        _COUNT_MATCHUP,
        _REBUILD_CATEGORY_STATS,
        _REBUILD_VOTE_STATS.format(extra="\n  SELECT arena_rebuild_category_stats();"),
    ):
        op.execute(statement)
    op.execute(
        "CREATE TRIGGER preferences_count_category_vote AFTER INSERT OR DELETE ON preferences "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_category_vote()"
    )
    op.execute(
        "CREATE TRIGGER matchups_count_category_matchup AFTER INSERT OR DELETE ON matchups "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_category_matchup()"
    )
    op.execute(
        "CREATE TRIGGER matchups_recount_category AFTER UPDATE OF categories, language "
        "ON matchups FOR EACH ROW WHEN (arena_prompt_slices(OLD.categories, OLD.language) "
        "IS DISTINCT FROM arena_prompt_slices(NEW.categories, NEW.language)) "
        "EXECUTE FUNCTION arena_count_category_matchup()"
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
    op.execute("DROP TRIGGER matchups_recount_category ON matchups")
    op.execute("DROP TRIGGER matchups_count_category_matchup ON matchups")
    op.execute("DROP TRIGGER preferences_count_category_vote ON preferences")
    op.execute(_REBUILD_VOTE_STATS.format(extra=""))
    for function in (
        "arena_rebuild_category_stats()",
        "arena_count_category_matchup()",
        "arena_count_category_round(uuid, uuid, uuid, text[], integer, boolean)",
        "arena_count_category_vote()",
        "arena_count_category_votes(preferences, uuid, uuid, text[], integer)",
        "arena_prompt_slices(text[], text)",
    ):
        op.execute(f"DROP FUNCTION {function}")
    op.drop_table("category_vote_activity")
    op.drop_table("category_pair_stats")
