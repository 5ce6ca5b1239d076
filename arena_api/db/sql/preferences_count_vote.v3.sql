-- preferences_count_vote, version 3: migration 0010
CREATE TRIGGER preferences_count_vote AFTER INSERT OR DELETE ON preferences
  FOR EACH ROW EXECUTE FUNCTION arena_count_vote();
