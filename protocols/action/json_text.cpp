#include "protocols/action/json_text.h"

namespace llmconform::action {

std::string QuoteJson(std::string_view s) {
  return nlohmann::ordered_json(std::string(s))
      .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

}  // namespace llmconform::action
