-- arena_roll_up_cost, version 1: migration 0007
CREATE OR REPLACE FUNCTION arena_roll_up_cost() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  r responses%ROWTYPE;
  d integer;
BEGIN
  IF TG_OP = 'INSERT' THEN r := NEW; d := 1; ELSE r := OLD; d := -1; END IF;
  INSERT INTO model_cost_daily AS s (day, model_id, responses, priced_responses, estimated_responses, input_tokens, output_tokens, cost_usd)
  VALUES (
  (r.created_at AT TIME ZONE 'UTC')::date, r.model_id,
  d, d * (r.cost_usd IS NOT NULL)::int,
  d * (r.token_count_source = 'estimated' OR r.input_token_source = 'estimated')::int,
  d * r.input_token_count, d * r.output_token_count, d * coalesce(r.cost_usd, 0)
)
  ON CONFLICT (day, model_id) DO UPDATE SET
    responses = s.responses + excluded.responses, priced_responses = s.priced_responses + excluded.priced_responses, estimated_responses = s.estimated_responses + excluded.estimated_responses, input_tokens = s.input_tokens + excluded.input_tokens, output_tokens = s.output_tokens + excluded.output_tokens, cost_usd = s.cost_usd + excluded.cost_usd;
  RETURN NULL;
END $$;
