-- arena_rebuild_category_stats, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_rebuild_category_stats() RETURNS void LANGUAGE sql AS $$
  DELETE FROM category_pair_stats;
  DELETE FROM category_vote_activity;
  DELETE FROM category_response_stats;
  DELETE FROM category_latency_values;
  DELETE FROM category_latency_buckets;
  DELETE FROM category_cost_daily;
  INSERT INTO category_pair_stats
         (category, slot_a_model_id, slot_b_model_id, method, matchups, left_wins, right_wins, both_good, both_bad, skips)
  SELECT c.slice, m.slot_a_model_id, m.slot_b_model_id, 'human', count(*),
         count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'left'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'right'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'both_good'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'both_bad'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'skip')
    FROM matchups m
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
    LEFT JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2, 3
  UNION ALL
  SELECT c.slice, m.slot_a_model_id, m.slot_b_model_id, 'judge', 0,
         count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'left'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'right'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'both_good'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'both_bad'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
   WHERE p.method = 'judge'
   GROUP BY 1, 2, 3;
  INSERT INTO category_vote_activity
         (category, bucket_start, model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT c.slice, date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
    CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2, 3, 4;
  INSERT INTO category_response_stats (category, model_id, responses, ttft_responses, output_tokens, markdown_density)
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
  INSERT INTO category_cost_daily (category, day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
  SELECT c.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id, count(*),
         count(r.cost_usd),
         count(*) FILTER (WHERE r.token_count_source = 'estimated'
                             OR r.input_token_source = 'estimated'),
         sum(r.input_token_count), sum(r.output_token_count), coalesce(sum(r.cost_usd), 0)
    FROM responses r JOIN matchups m ON m.id = r.matchup_id
    CROSS JOIN unnest(arena_prompt_slices(m.categories, m.language)) AS c (slice)
   GROUP BY 1, 2, 3;
$$;
