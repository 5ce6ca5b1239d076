-- arena_count_category_vote, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_count_category_vote() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec preferences%ROWTYPE;
  delta integer;
  a uuid;
  b uuid;
  cut text[];
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  SELECT slot_a_model_id, slot_b_model_id, arena_prompt_slices(categories, language)
    INTO a, b, cut FROM matchups WHERE id = rec.matchup_id;
  IF NOT FOUND OR cardinality(cut) = 0 THEN
    RETURN NULL;  -- gone with its matchup (recount after bulk deletes), or in no slice
  END IF;
  PERFORM arena_count_category_votes(rec, a, b, cut, delta);
  RETURN NULL;
END $$;
