-- responses_count_category_answer, version 1: migration 0014
CREATE TRIGGER responses_count_category_answer AFTER INSERT OR DELETE ON responses
  FOR EACH ROW EXECUTE FUNCTION arena_count_category_response();
