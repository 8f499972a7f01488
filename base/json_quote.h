// A string as a JSON string literal, for messages that quote a value.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/json_read.h"

namespace llmconform {

// `s` as a JSON string literal ("\"a \\\"b\\\"\"" for a "b"). Never throws:
// ill-formed UTF-8 is shown as U+FFFD (DumpJson).
inline std::string QuoteJson(std::string_view s) {
  return DumpJson(nlohmann::json(std::string(s)));
}

}  // namespace llmconform
