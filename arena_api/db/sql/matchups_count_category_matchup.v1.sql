-- matchups_count_category_matchup, version 1: migration 0014
CREATE TRIGGER matchups_count_category_matchup AFTER INSERT OR DELETE ON matchups
  FOR EACH ROW EXECUTE FUNCTION arena_count_category_matchup();
