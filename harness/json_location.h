// Errors about JSON files, located: `file:line:col: expected …, got …`
// (the locating itself is base/json_locate.h).
#pragma once

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform::harness {

// Parses JSON text with base's ReadJson (depth limit, invalid UTF-8 and
// numbers out of range refused); any problem reads "NAME:LINE:COL: what".
std::expected<nlohmann::json, Error> ParseJsonText(std::string_view name, std::string_view text);

// "NAME:LINE:COL: MESSAGE" at the value `pointer` names, or "NAME: POINTER: MESSAGE"
// when it cannot be located.
std::string LocatedMessage(std::string_view name, std::string_view text,
                           const nlohmann::json::json_pointer& pointer, std::string_view message);

}  // namespace llmconform::harness
