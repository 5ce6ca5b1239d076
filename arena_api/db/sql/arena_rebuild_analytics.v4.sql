-- arena_rebuild_analytics, version 4: migration 0018 (answers imported without timings)
CREATE OR REPLACE FUNCTION arena_rebuild_analytics() RETURNS void LANGUAGE sql AS $$
  DELETE FROM pair_outcome_stats;
  DELETE FROM vote_activity;
  DELETE FROM pair_style_stats;
  DELETE FROM model_response_stats;
  DELETE FROM response_latency_buckets;
  DELETE FROM response_latency_values;
  INSERT INTO pair_outcome_stats
         (slot_a_model_id, slot_b_model_id, method, matchups, left_wins, right_wins, both_good, both_bad, skips)
  SELECT m.slot_a_model_id, m.slot_b_model_id, 'human', count(*),
         count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'left'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'right'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'both_good'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'both_bad'), count(*) FILTER (WHERE p.method = 'human' AND p.vote = 'skip')
    FROM matchups m LEFT JOIN preferences p ON p.matchup_id = m.id
   GROUP BY 1, 2
  UNION ALL
  SELECT m.slot_a_model_id, m.slot_b_model_id, 'judge', 0,
         count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'left'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'right'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'both_good'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'both_bad'), count(*) FILTER (WHERE p.method = 'judge' AND p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   WHERE p.method = 'judge'
   GROUP BY 1, 2;
  INSERT INTO vote_activity (bucket_start, model_id, method, left_wins, right_wins, both_good, both_bad, skips)
  SELECT date_trunc('hour', p.created_at, 'UTC'), v.model_id, p.method,
         count(*) FILTER (WHERE p.vote = 'left'), count(*) FILTER (WHERE p.vote = 'right'),
         count(*) FILTER (WHERE p.vote = 'both_good'),
         count(*) FILTER (WHERE p.vote = 'both_bad'), count(*) FILTER (WHERE p.vote = 'skip')
    FROM preferences p JOIN matchups m ON m.id = p.matchup_id
   CROSS JOIN LATERAL (VALUES (m.slot_a_model_id), (m.slot_b_model_id)) AS v (model_id)
   GROUP BY 1, 2, 3;
  INSERT INTO pair_style_stats (model_lo, model_hi, method, votes, verbosity_sum, verbosity_squares, formatting_sum, formatting_squares, ttft_sum, ttft_squares, duration_sum, duration_squares)
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), p.method, count(*),
         sum(d.tokens), sum(d.tokens * d.tokens), sum(d.markdown), sum(d.markdown * d.markdown),
         sum(d.ttft), sum(d.ttft * d.ttft), sum(d.duration), sum(d.duration * d.duration)
    FROM preferences p
    JOIN responses ra ON ra.matchup_id = p.matchup_id AND ra.slot = 'A'
    JOIN responses rb ON rb.matchup_id = p.matchup_id AND rb.slot = 'B'
    CROSS JOIN LATERAL (SELECT
      (ra.output_token_count - rb.output_token_count)::float8 AS tokens,
      ra.markdown_density - rb.markdown_density AS markdown,
      (ra.ttft_ms - rb.ttft_ms)::float8 AS ttft,
      (ra.stream_duration_ms - rb.stream_duration_ms)::float8 AS duration) AS d
   WHERE p.vote <> 'skip' AND ra.error IS NULL AND rb.error IS NULL
     AND ra.ttft_ms IS NOT NULL AND rb.ttft_ms IS NOT NULL
   GROUP BY 1, 2, 3;
  INSERT INTO model_response_stats
         (model_id, responses, ttft_responses, output_tokens, markdown_density)
  SELECT model_id, count(*), count(ttft_ms), sum(output_token_count), sum(markdown_density)
    FROM responses WHERE error IS NULL
   GROUP BY 1;
  INSERT INTO response_latency_values (model_id, metric, value_ms, responses)
  SELECT model_id, 'duration', stream_duration_ms, count(*)
    FROM responses WHERE error IS NULL AND stream_duration_ms IS NOT NULL
   GROUP BY 1, 3
  UNION ALL
  SELECT model_id, 'ttft', ttft_ms, count(*)
    FROM responses WHERE error IS NULL AND ttft_ms IS NOT NULL
   GROUP BY 1, 3;
  INSERT INTO response_latency_buckets (model_id, metric, bucket, responses)
  SELECT model_id, metric, value_ms / 100, sum(responses)
    FROM response_latency_values
   GROUP BY 1, 2, 3;
$$;
