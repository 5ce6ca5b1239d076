-- arena_count_style_deltas, version 2: migration 0010
CREATE OR REPLACE FUNCTION arena_count_style_deltas(m uuid, delta integer, voted_by text) RETURNS void
LANGUAGE plpgsql AS $$
BEGIN
  -- Nothing is inserted unless both answers are stored, neither failed and both have a TTFT:
  -- the votes the style pass of the rating process can use.
  INSERT INTO pair_style_stats AS s (model_lo, model_hi, method, votes, verbosity_sum, verbosity_squares, formatting_sum, formatting_squares, ttft_sum, ttft_squares, duration_sum, duration_squares)
  SELECT LEAST(ra.model_id, rb.model_id), GREATEST(ra.model_id, rb.model_id), voted_by, delta,
         delta * d.tokens, delta * d.tokens * d.tokens,
         delta * d.markdown, delta * d.markdown * d.markdown,
         delta * d.ttft, delta * d.ttft * d.ttft,
         delta * d.duration, delta * d.duration * d.duration
    FROM responses ra
    JOIN responses rb ON rb.matchup_id = ra.matchup_id AND rb.slot = 'B'
    CROSS JOIN LATERAL (SELECT
      (ra.output_token_count - rb.output_token_count)::float8 AS tokens,
      ra.markdown_density - rb.markdown_density AS markdown,
      (ra.ttft_ms - rb.ttft_ms)::float8 AS ttft,
      (ra.stream_duration_ms - rb.stream_duration_ms)::float8 AS duration) AS d
   WHERE ra.matchup_id = m AND ra.slot = 'A'
     AND ra.error IS NULL AND rb.error IS NULL
     AND ra.ttft_ms IS NOT NULL AND rb.ttft_ms IS NOT NULL
  ON CONFLICT (model_lo, model_hi, method) DO UPDATE SET votes = s.votes + EXCLUDED.votes, verbosity_sum = s.verbosity_sum + EXCLUDED.verbosity_sum, verbosity_squares = s.verbosity_squares + EXCLUDED.verbosity_squares, formatting_sum = s.formatting_sum + EXCLUDED.formatting_sum, formatting_squares = s.formatting_squares + EXCLUDED.formatting_squares, ttft_sum = s.ttft_sum + EXCLUDED.ttft_sum, ttft_squares = s.ttft_squares + EXCLUDED.ttft_squares, duration_sum = s.duration_sum + EXCLUDED.duration_sum, duration_squares = s.duration_squares + EXCLUDED.duration_squares;
END $$;
