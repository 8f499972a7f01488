// JSON text with its numbers spelled as written. nlohmann::json reads every
// number into a double or a 64-bit integer, so a number like
// 12345678901234567890123 (or 1.50, -0, 1e2) comes out spelled differently;
// ACT-14 wants `args` to reach the client as the reply wrote them.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace llmconform::action {

// Objects and arrays nested deeper than this are not rewritten (nullopt).
inline constexpr int kMaxSpelledDepth = 512;

// The compact JSON text of the value at `path` (member names, outermost
// first) in the JSON text `json_text`, every number spelled exactly as there.
// Everything else is as nlohmann::ordered_json reads and writes it: member
// order kept, a repeated key holds its last value (at its first place),
// strings re-escaped the way dump() does. nullopt when the text is not JSON,
// the path leads nowhere, or the value nests deeper than kMaxSpelledDepth.
std::optional<std::string> SpelledJsonAt(std::string_view json_text,
                                         std::initializer_list<std::string_view> path);

// The compact text of `j` (as DumpJson writes it: invalid UTF-8 replaced)
// with the value at `path` (member names, outermost first) written as
// `text`, which must be JSON text. When the path leads nowhere, `j` as
// DumpJson writes it. Objects keep `j`'s member order.
std::string DumpWithTextAt(const nlohmann::json& j, std::span<const std::string_view> path,
                           std::string_view text);

// Whether two JSON texts hold the same value when numbers are compared by
// their spelling ("1.0" is not "1", 12345678901234567890123 is not
// 1.2345678901234568e+22): member order and layout do not matter, strings
// compare by their decoded value. False when either is not JSON.
bool SameJsonSpelling(std::string_view a, std::string_view b);

}  // namespace llmconform::action
