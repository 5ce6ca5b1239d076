"""keep per-model and per-pair vote counters current with a trigger on preferences

The leaderboard's win/loss records and the matchmaker's pair counts are read on the request path;
counting them from `preferences` would cost O(votes) per request. A trigger maintains them in the
voting transaction instead, for every writer (the vote route, a judge, the demo seeder), and
`arena_rebuild_vote_stats()` recounts them from scratch (after bulk loads, and here to backfill).

Revision ID: 0002
Revises: 0001
Create Date: 2026-11-30
"""

from __future__ import annotations

from collections.abc import Sequence

import sqlalchemy as sa
from alembic import op

revision: str = "0002"
down_revision: str | None = "0001"
branch_labels: str | Sequence[str] | None = None
depends_on: str | Sequence[str] | None = None

_COUNT_VOTE = """
CREATE FUNCTION arena_count_vote() RETURNS trigger LANGUAGE plpgsql AS $$
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
END $$;
"""

_REBUILD = """
CREATE FUNCTION arena_rebuild_vote_stats() RETURNS void LANGUAGE sql AS $$
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
$$;
"""


def upgrade() -> None:
    op.create_table(
        "model_vote_stats",
        sa.Column("model_id", sa.UUID(), nullable=False),
        sa.Column("wins", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("losses", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("ties", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.Column("skips", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.ForeignKeyConstraint(
            ["model_id"],
            ["models.id"],
            name=op.f("model_vote_stats_model_id_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_id", name=op.f("model_vote_stats_pkey")),
    )
    op.create_table(
        "pair_vote_stats",
        sa.Column("model_lo", sa.UUID(), nullable=False),
        sa.Column("model_hi", sa.UUID(), nullable=False),
        sa.Column("games", sa.Integer(), server_default=sa.text("0"), nullable=False),
        sa.CheckConstraint(
            "model_lo < model_hi", name=op.f("pair_vote_stats_canonical_order_check")
        ),
        sa.ForeignKeyConstraint(
            ["model_lo"],
            ["models.id"],
            name=op.f("pair_vote_stats_model_lo_fkey"),
            ondelete="CASCADE",
        ),
        sa.ForeignKeyConstraint(
            ["model_hi"],
            ["models.id"],
            name=op.f("pair_vote_stats_model_hi_fkey"),
            ondelete="CASCADE",
        ),
        sa.PrimaryKeyConstraint("model_lo", "model_hi", name=op.f("pair_vote_stats_pkey")),
    )
    op.execute(_COUNT_VOTE)
    op.execute(
        "CREATE TRIGGER preferences_count_vote AFTER INSERT OR DELETE ON preferences "
        "FOR EACH ROW EXECUTE FUNCTION arena_count_vote()"
    )
    op.execute(_REBUILD)
    op.execute("SELECT arena_rebuild_vote_stats()")


def downgrade() -> None:
    op.execute("DROP TRIGGER preferences_count_vote ON preferences")
    op.execute("DROP FUNCTION arena_count_vote()")
    op.execute("DROP FUNCTION arena_rebuild_vote_stats()")
    op.drop_table("pair_vote_stats")
    op.drop_table("model_vote_stats")
