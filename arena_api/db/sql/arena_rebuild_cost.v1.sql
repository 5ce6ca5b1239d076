-- arena_rebuild_cost, version 1: migration 0007
CREATE OR REPLACE FUNCTION arena_rebuild_cost() RETURNS void LANGUAGE sql AS $$
  DELETE FROM model_cost_daily;
  INSERT INTO model_cost_daily (day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
  SELECT c.day, c.model_id, sum(c.responses), sum(c.priced_responses), sum(c.estimated_responses), sum(c.input_tokens), sum(c.output_tokens), sum(c.cost_usd)
    FROM responses r CROSS JOIN LATERAL (SELECT 1 AS d) AS one
   CROSS JOIN LATERAL (SELECT 
  (r.created_at AT TIME ZONE 'UTC')::date, r.model_id,
  d, d * (r.cost_usd IS NOT NULL)::int,
  d * (r.token_count_source = 'estimated' OR r.input_token_source = 'estimated')::int,
  d * r.input_token_count, d * r.output_token_count, d * coalesce(r.cost_usd, 0)
) AS c (day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
   GROUP BY c.day, c.model_id;
$$;
