-- preferences_roll_up_vote, version 1: migration 0003
CREATE TRIGGER preferences_roll_up_vote AFTER INSERT OR DELETE ON preferences
  FOR EACH ROW EXECUTE FUNCTION arena_roll_up_vote();
