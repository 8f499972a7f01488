// Locating things in JSON text, for error messages of the form
// `file:line:col: expected …, got …`.
#pragma once

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "protocols/wire/error.h"

namespace llmconform::harness {

struct TextPosition {
  std::size_t line = 1;    // 1-based
  std::size_t column = 1;  // 1-based, in bytes
};

// Line and column of byte `offset` (0-based) in `text`.
TextPosition PositionOfOffset(std::string_view text, std::size_t offset);

// Where the value at `pointer` ("/rules/3") starts in the JSON `text`, found
// with yaml-cpp (JSON is YAML), or nullopt if the text or pointer do not lead
// there.
std::optional<TextPosition> LocatePointer(std::string_view text,
                                          const nlohmann::json::json_pointer& pointer);

// Parses JSON text; a syntax error reads
// "NAME:LINE:COL: expected …; got …" (nlohmann's explanation, located).
std::expected<nlohmann::json, Error> ParseJsonText(std::string_view name, std::string_view text);

// "NAME:LINE:COL: MESSAGE" at the value `pointer` names, or "NAME: POINTER: MESSAGE"
// when it cannot be located.
std::string LocatedMessage(std::string_view name, std::string_view text,
                           const nlohmann::json::json_pointer& pointer, std::string_view message);

}  // namespace llmconform::harness
