-- arena_count_vote, version 1: migration 0002
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
