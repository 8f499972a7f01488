#include "protocols/action/json_text.h"

#include <cstddef>
#include <cstdint>

namespace llmconform::action {

bool IsValidUtf8(std::string_view s) {
  std::size_t i = 0;
  while (i < s.size()) {
    const auto b0 = static_cast<std::uint8_t>(s[i]);
    if (b0 < 0x80) {
      ++i;
      continue;
    }
    std::size_t length = 0;
    std::uint8_t low = 0x80;   // bounds of the second byte, which exclude overlong
    std::uint8_t high = 0xBF;  // forms, surrogates and code points above U+10FFFF
    if (b0 >= 0xC2 && b0 <= 0xDF) {
      length = 2;
    } else if (b0 >= 0xE0 && b0 <= 0xEF) {
      length = 3;
      if (b0 == 0xE0) low = 0xA0;
      if (b0 == 0xED) high = 0x9F;
    } else if (b0 >= 0xF0 && b0 <= 0xF4) {
      length = 4;
      if (b0 == 0xF0) low = 0x90;
      if (b0 == 0xF4) high = 0x8F;
    } else {
      return false;
    }
    if (s.size() - i < length) return false;
    const auto b1 = static_cast<std::uint8_t>(s[i + 1]);
    if (b1 < low || b1 > high) return false;
    for (std::size_t k = 2; k < length; ++k) {
      const auto b = static_cast<std::uint8_t>(s[i + k]);
      if (b < 0x80 || b > 0xBF) return false;
    }
    i += length;
  }
  return true;
}

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
