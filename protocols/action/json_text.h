// Small JSON-text helpers shared by the action protocol's reader and writer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/utf8.h"  // IsValidUtf8, which these helpers' users need too

namespace llmconform::action {

// `s` as a JSON string literal, for messages. Never throws: ill-formed UTF-8
// is shown as U+FFFD.
std::string QuoteJson(std::string_view s);

// "string", "number", "object", … for messages that say what was found.
std::string_view TypeName(const nlohmann::ordered_json& j);

}  // namespace llmconform::action
