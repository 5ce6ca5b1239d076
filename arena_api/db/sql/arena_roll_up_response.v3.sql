-- arena_roll_up_response, version 3: migration 0010
CREATE OR REPLACE FUNCTION public.arena_roll_up_response()
 RETURNS trigger
 LANGUAGE plpgsql
AS $function$
DECLARE
  rec responses%ROWTYPE;
  delta integer;
  voted_by text;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  IF rec.error IS NULL THEN
    INSERT INTO model_response_stats AS s
           (model_id, responses, ttft_responses, output_tokens, markdown_density)
    VALUES (rec.model_id, delta, delta * (rec.ttft_ms IS NOT NULL)::int,
            delta * rec.output_token_count, delta * rec.markdown_density)
    ON CONFLICT (model_id) DO UPDATE SET
      responses = s.responses + EXCLUDED.responses, ttft_responses = s.ttft_responses + EXCLUDED.ttft_responses, output_tokens = s.output_tokens + EXCLUDED.output_tokens, markdown_density = s.markdown_density + EXCLUDED.markdown_density;
    INSERT INTO response_latency_values AS s (model_id, metric, value_ms, responses)
    SELECT rec.model_id, v.metric, v.value_ms, delta
      FROM (VALUES ('duration', rec.stream_duration_ms), ('ttft', rec.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
    ON CONFLICT (model_id, metric, value_ms) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
    INSERT INTO response_latency_buckets AS s (model_id, metric, bucket, responses)
    SELECT rec.model_id, v.metric, v.value_ms / 100, delta
      FROM (VALUES ('duration', rec.stream_duration_ms), ('ttft', rec.ttft_ms))
           AS v (metric, value_ms)
     WHERE v.value_ms IS NOT NULL
    ON CONFLICT (model_id, metric, bucket) DO UPDATE SET responses = s.responses + EXCLUDED.responses;
  END IF;
  IF TG_OP = 'INSERT' THEN
    -- Serialise with the matchup's vote and other answer; the last of the three counts.
    PERFORM pg_advisory_xact_lock(1095913025, hashtext(rec.matchup_id::text));
    SELECT method INTO voted_by FROM preferences
     WHERE matchup_id = rec.matchup_id AND vote <> 'skip';
    IF FOUND THEN
      PERFORM arena_count_style_deltas(rec.matchup_id, 1, voted_by);
    END IF;
  END IF;
  RETURN NULL;
END $function$;
