#include "protocols/action/json_text.h"

#include <cstddef>
#include <cstdint>

namespace llmconform::action {

std::string QuoteJson(std::string_view s) {
  return nlohmann::ordered_json(std::string(s))
      .dump(-1, ' ', false, nlohmann::ordered_json::error_handler_t::replace);
}

std::string_view TypeName(const nlohmann::ordered_json& j) {
  switch (j.type()) {
    case nlohmann::ordered_json::value_t::null:
      return "null";
    case nlohmann::ordered_json::value_t::boolean:
      return "a boolean";
    case nlohmann::ordered_json::value_t::string:
      return "a string";
    case nlohmann::ordered_json::value_t::object:
      return "an object";
    case nlohmann::ordered_json::value_t::array:
      return "an array";
    case nlohmann::ordered_json::value_t::binary:
      return "binary";
    case nlohmann::ordered_json::value_t::discarded:
      return "discarded";
    default:
      return "a number";
  }
}

}  // namespace llmconform::action
