-- arena_count_matchup, version 2: migration 0010
CREATE OR REPLACE FUNCTION arena_count_matchup() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec matchups%ROWTYPE;
  delta integer;
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  -- A pair's matchups are counted on its human row, whoever votes on them.
  INSERT INTO pair_outcome_stats AS s (slot_a_model_id, slot_b_model_id, method, matchups)
  VALUES (rec.slot_a_model_id, rec.slot_b_model_id, 'human', delta)
  ON CONFLICT (slot_a_model_id, slot_b_model_id, method)
  DO UPDATE SET matchups = s.matchups + delta;
  RETURN NULL;
END $$;
