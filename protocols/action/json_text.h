// Small JSON-text helpers shared by the action protocol's reader and writer.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

namespace llmconform::action {

// Whether `s` is well-formed UTF-8 (no overlong forms, no surrogates, nothing
// above U+10FFFF): what nlohmann::json needs to serialise a string.
bool IsValidUtf8(std::string_view s);

// `s` as a JSON string literal, for messages. Never throws: ill-formed UTF-8
// is shown as U+FFFD.
std::string QuoteJson(std::string_view s);

// "string", "number", "object", … for messages that say what was found.
std::string_view TypeName(const nlohmann::ordered_json& j);

}  // namespace llmconform::action
