-- responses_roll_up_cost, version 1: migration 0007
CREATE TRIGGER responses_roll_up_cost AFTER INSERT OR DELETE ON responses
  FOR EACH ROW EXECUTE FUNCTION arena_roll_up_cost();
