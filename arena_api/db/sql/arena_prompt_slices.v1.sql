-- arena_prompt_slices, version 1: migration 0014
CREATE OR REPLACE FUNCTION arena_prompt_slices(categories text[], language text) RETURNS text[]
LANGUAGE sql IMMUTABLE PARALLEL SAFE AS $$
  SELECT coalesce(categories, '{}'::text[])
      || CASE WHEN language IS NULL OR language = 'und' THEN '{}'::text[]
              ELSE ARRAY['language:' || language] END
$$;
