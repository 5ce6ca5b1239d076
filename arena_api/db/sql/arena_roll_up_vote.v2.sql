-- arena_roll_up_vote, version 2: migration 0010
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
         (slot_a_model_id, slot_b_model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  VALUES (a, b, rec.method, delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
          delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
          delta * (rec.vote = 'skip')::int)
  ON CONFLICT (slot_a_model_id, slot_b_model_id, method) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  -- Both models' rows, locked in model-id order so that concurrent votes cannot deadlock.
  INSERT INTO vote_activity AS s (bucket_start, model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT date_trunc('hour', rec.created_at, 'UTC'), v.model_id, rec.method,
         delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int,
         delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int,
         delta * (rec.vote = 'skip')::int
    FROM (VALUES (a), (b)) AS v (model_id)
   ORDER BY v.model_id
  ON CONFLICT (bucket_start, model_id, method) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  IF rec.vote <> 'skip' THEN
    PERFORM pg_advisory_xact_lock(1095913025, hashtext(rec.matchup_id::text));
    PERFORM arena_count_style_deltas(rec.matchup_id, delta, rec.method);
  END IF;
  RETURN NULL;
END $$;
