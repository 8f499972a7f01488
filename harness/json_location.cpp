#include "harness/json_location.h"

#include "protocols/wire/format.h"
#include "protocols/wire/json_locate.h"

namespace llmconform::harness {

std::expected<nlohmann::json, Error> ParseJsonText(std::string_view name, std::string_view text) {
  try {
    return nlohmann::json::parse(text);
  } catch (const nlohmann::json::parse_error& e) {
    // e.byte is the 1-based index of the last byte read; the error is there.
    const LineColumn pos = LineColumnOf(text, e.byte == 0 ? 0 : e.byte - 1);
    // nlohmann: "[json.exception.parse_error.101] parse error at line 1, column 3: syntax error
    // while parsing value - invalid literal; last read: 'tr'": keep what follows the location.
    std::string what = e.what();
    if (auto at = what.find("syntax error while "); at != std::string::npos) {
      what = what.substr(at);
    } else if (auto colon = what.find(": "); colon != std::string::npos) {
      what = what.substr(colon + 2);
    }
    return std::unexpected(Error{Format("{}:{}:{}: {}", name, pos.line, pos.column, what)});
  }
}

std::string LocatedMessage(std::string_view name, std::string_view text,
                           const nlohmann::json::json_pointer& pointer, std::string_view message) {
  if (auto at = LocateJsonPointer(text, pointer.to_string())) {
    const LineColumn pos = LineColumnOf(text, *at);
    return Format("{}:{}:{}: {}", name, pos.line, pos.column, message);
  }
  return Format("{}: {}: {}", name, pointer.to_string(), message);
}

}  // namespace llmconform::harness
