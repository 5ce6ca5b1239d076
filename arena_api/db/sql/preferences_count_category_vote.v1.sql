-- preferences_count_category_vote, version 1: migration 0014
CREATE TRIGGER preferences_count_category_vote AFTER INSERT OR DELETE ON preferences
  FOR EACH ROW EXECUTE FUNCTION arena_count_category_vote();
