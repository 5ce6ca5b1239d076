-- arena_count_category_matchup, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_count_category_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  -- A round's matchup is counted on the human rows, whoever votes on it.
  INSERT INTO category_pair_stats AS s
         (category, slot_a_model_id, slot_b_model_id, method, matchups)
  SELECT c.slice, rec.slot_a_model_id, rec.slot_b_model_id, 'human', delta
    FROM unnest(arena_prompt_slices(rec.categories, rec.language)) AS c (slice)
   ORDER BY c.slice
  ON CONFLICT (category, slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + EXCLUDED.matchups;
  RETURN NULL;
END $$;
