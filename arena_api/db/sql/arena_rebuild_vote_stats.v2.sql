-- arena_rebuild_vote_stats, version 2: migration 0003
CREATE OR REPLACE FUNCTION arena_rebuild_vote_stats() RETURNS void LANGUAGE sql AS $$

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

  SELECT arena_rebuild_analytics();
$$;
