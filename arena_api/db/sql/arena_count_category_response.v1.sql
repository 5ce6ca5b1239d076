-- arena_count_category_response, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_count_category_response() RETURNS trigger LANGUAGE plpgsql AS $$
DECLARE
  rec responses%ROWTYPE;
  delta integer;
  cut text[];
BEGIN
  IF TG_OP = 'INSERT' THEN rec := NEW; delta := 1; ELSE rec := OLD; delta := -1; END IF;
  SELECT arena_prompt_slices(categories, language) INTO cut
    FROM matchups WHERE id = rec.matchup_id;
  IF NOT FOUND OR cardinality(cut) = 0 THEN
    RETURN NULL;  -- gone with its matchup (recount after bulk deletes), or in no slice
  END IF;
  PERFORM arena_count_category_answer(rec, cut, delta);
  RETURN NULL;
END $$;
