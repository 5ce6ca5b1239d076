-- arena_rebuild_vote_stats, version 5: migration 0014
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
  SELECT arena_rebuild_category_stats();
$$;
