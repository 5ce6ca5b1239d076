-- matchups_move_category_rounds, version 1: migration 0014
CREATE TRIGGER matchups_move_category_rounds AFTER UPDATE ON matchups
  REFERENCING OLD TABLE AS old_rounds NEW TABLE AS new_rounds
  FOR EACH STATEMENT EXECUTE FUNCTION arena_move_category_rounds();
