#include "harness/json_location.h"

#include "base/format.h"
#include "base/json_locate.h"
#include "base/json_read.h"

namespace llmconform::harness {

std::expected<nlohmann::json, Error> ParseJsonText(std::string_view name, std::string_view text) {
  auto j = ReadJson(name, text);
  if (!j) return std::unexpected(Error{std::move(j.error().message)});
  return std::move(*j);
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
