-- preferences_roll_up_vote, version 2: migration 0008
CREATE TRIGGER preferences_roll_up_vote_insert AFTER INSERT ON preferences
  FOR EACH ROW WHEN (NEW.method = 'human') EXECUTE FUNCTION arena_roll_up_vote();
CREATE TRIGGER preferences_roll_up_vote_delete AFTER DELETE ON preferences
  FOR EACH ROW WHEN (OLD.method = 'human') EXECUTE FUNCTION arena_roll_up_vote();
