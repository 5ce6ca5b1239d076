-- responses_roll_up_response, version 1: migration 0003
CREATE TRIGGER responses_roll_up_response AFTER INSERT OR DELETE ON responses
  FOR EACH ROW EXECUTE FUNCTION arena_roll_up_response();
