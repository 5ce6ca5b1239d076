-- arena_move_category_rounds, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_move_category_rounds() RETURNS trigger LANGUAGE plpgsql AS $$
BEGIN
  
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
)
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, matchups)
  SELECT m.slice, m.a, m.b, 'human', sum(m.d) FROM moved m GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + EXCLUDED.matchups;
  
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
)
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT m.slice, m.a, m.b, p.method, sum(m.d * (p.vote = 'left')::int), sum(m.d * (p.vote = 'right')::int), sum(m.d * (p.vote = 'both_good')::int), sum(m.d * (p.vote = 'both_bad')::int), sum(m.d * (p.vote = 'skip')::int)
    FROM moved m JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  
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
)
  INSERT INTO category_vote_activity AS s
         (category, bucket_start, model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT m.slice, date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         sum(m.d * (p.vote = 'left')::int), sum(m.d * (p.vote = 'right')::int), sum(m.d * (p.vote = 'both_good')::int), sum(m.d * (p.vote = 'both_bad')::int), sum(m.d * (p.vote = 'skip')::int)
    FROM moved m JOIN preferences p ON p.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES (m.a), (m.b)) AS v (model_id)
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, bucket_start, model_id, method) DO UPDATE SET left_wins = s.left_wins + EXCLUDED.left_wins, right_wins = s.right_wins + EXCLUDED.right_wins, both_good = s.both_good + EXCLUDED.both_good, both_bad = s.both_bad + EXCLUDED.both_bad, skips = s.skips + EXCLUDED.skips;
  
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
)
  INSERT INTO category_response_stats AS s (category, model_id, responses, ttft_responses, output_tokens, markdown_density)
  SELECT m.slice, r.model_id, sum(m.d), sum(m.d * (r.ttft_ms IS NOT NULL)::int),
         sum(m.d * r.output_token_count), sum(m.d * r.markdown_density)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   WHERE r.error IS NULL
   GROUP BY 1, 2 ORDER BY 1, 2
  ON CONFLICT (category, model_id) DO UPDATE SET responses = s.responses + EXCLUDED.responses, ttft_responses = s.ttft_responses + EXCLUDED.ttft_responses, output_tokens = s.output_tokens + EXCLUDED.output_tokens, markdown_density = s.markdown_density + EXCLUDED.markdown_density;
  
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
)
  INSERT INTO category_latency_values AS s (category, model_id, metric, value_ms, responses)
  SELECT m.slice, r.model_id, v.metric, v.value_ms, sum(m.d)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
         AS v (metric, value_ms)
   WHERE r.error IS NULL AND v.value_ms IS NOT NULL
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, model_id, metric, value_ms) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
  
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
)
  INSERT INTO category_latency_buckets AS s (category, model_id, metric, bucket, responses)
  SELECT m.slice, r.model_id, v.metric, v.value_ms / 100, sum(m.d)
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   CROSS JOIN LATERAL (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
         AS v (metric, value_ms)
   WHERE r.error IS NULL AND v.value_ms IS NOT NULL
   GROUP BY 1, 2, 3, 4 ORDER BY 1, 2, 3, 4
  ON CONFLICT (category, model_id, metric, bucket) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
  
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
)
  INSERT INTO category_cost_daily AS s (category, day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
  SELECT m.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id, sum(m.d),
         sum(m.d * (r.cost_usd IS NOT NULL)::int),
         sum(m.d * (r.token_count_source = 'estimated'
                    OR r.input_token_source = 'estimated')::int),
         sum(m.d * r.input_token_count), sum(m.d * r.output_token_count),
         sum(m.d * coalesce(r.cost_usd, 0))
    FROM moved m JOIN responses r ON r.matchup_id = m.id
   GROUP BY 1, 2, 3 ORDER BY 1, 2, 3
  ON CONFLICT (category, day, model_id) DO UPDATE SET responses = s.responses + EXCLUDED.responses, priced_responses = s.priced_responses + EXCLUDED.priced_responses, estimated_responses = s.estimated_responses + EXCLUDED.estimated_responses, input_tokens = s.input_tokens + EXCLUDED.input_tokens, output_tokens = s.output_tokens + EXCLUDED.output_tokens, cost_usd = s.cost_usd + EXCLUDED.cost_usd;
  RETURN NULL;
END $$;
