-- arena_count_category_answer, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_count_category_answer(r responses, slices text[], d integer)
RETURNS void LANGUAGE plpgsql AS $$
BEGIN
  IF r.error IS NULL THEN
    INSERT INTO category_response_stats AS s (category, model_id, responses, ttft_responses, output_tokens, markdown_density)
    SELECT c.slice, r.model_id, d, d * (r.ttft_ms IS NOT NULL)::int, d * r.output_token_count,
           d * r.markdown_density
      FROM unnest(slices) AS c (slice)
     ORDER BY c.slice
    ON CONFLICT (category, model_id) DO UPDATE SET responses = s.responses + EXCLUDED.responses, ttft_responses = s.ttft_responses + EXCLUDED.ttft_responses, output_tokens = s.output_tokens + EXCLUDED.output_tokens, markdown_density = s.markdown_density + EXCLUDED.markdown_density;
    INSERT INTO category_latency_values AS s (category, model_id, metric, value_ms, responses)
    SELECT c.slice, r.model_id, v.metric, v.value_ms, d
      FROM unnest(slices) AS c (slice)
     CROSS JOIN (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
     ORDER BY c.slice, v.metric
    ON CONFLICT (category, model_id, metric, value_ms) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
    INSERT INTO category_latency_buckets AS s (category, model_id, metric, bucket, responses)
    SELECT c.slice, r.model_id, v.metric, v.value_ms / 100, d
      FROM unnest(slices) AS c (slice)
     CROSS JOIN (VALUES ('duration', r.stream_duration_ms), ('ttft', r.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
     ORDER BY c.slice, v.metric
    ON CONFLICT (category, model_id, metric, bucket) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
  END IF;
  INSERT INTO category_cost_daily AS s (category, day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
  SELECT c.slice, (r.created_at AT TIME ZONE 'UTC')::date, r.model_id,
         d, d * (r.cost_usd IS NOT NULL)::int,
         d * (r.token_count_source = 'estimated' OR r.input_token_source = 'estimated')::int,
         d * r.input_token_count, d * r.output_token_count, d * coalesce(r.cost_usd, 0)
    FROM unnest(slices) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, day, model_id) DO UPDATE SET responses = s.responses + EXCLUDED.responses, priced_responses = s.priced_responses + EXCLUDED.priced_responses, estimated_responses = s.estimated_responses + EXCLUDED.estimated_responses, input_tokens = s.input_tokens + EXCLUDED.input_tokens, output_tokens = s.output_tokens + EXCLUDED.output_tokens, cost_usd = s.cost_usd + EXCLUDED.cost_usd;
END $$;
