-- arena_count_category_votes, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_count_category_votes(
  rec preferences, a uuid, b uuid, slices text[], delta integer
) RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT c.slice, a, b, rec.method, delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int, delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int, delta * (rec.vote = 'skip')::int
    FROM unnest(slices) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  INSERT INTO category_vote_activity AS s
         (category, bucket_start, model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT c.slice, date_trunc('hour', rec.created_at, 'UTC'), v.model_id, rec.method,
         delta * (rec.vote = 'left')::int, delta * (rec.vote = 'right')::int, delta * (rec.vote = 'both_good')::int, delta * (rec.vote = 'both_bad')::int, delta * (rec.vote = 'skip')::int
    FROM unnest(slices) AS c (slice) CROSS JOIN (VALUES (a), (b)) AS v (model_id)
   ORDER BY c.slice, v.model_id
  ON CONFLICT (category, bucket_start, model_id, method) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
END $$;
