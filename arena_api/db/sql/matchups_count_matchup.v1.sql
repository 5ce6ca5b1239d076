-- matchups_count_matchup, version 1: migration 0003
CREATE TRIGGER matchups_count_matchup AFTER INSERT OR DELETE ON matchups
  FOR EACH ROW EXECUTE FUNCTION arena_count_matchup();
