// Where things are in JSON text, for errors of the form
// `file:line:col: /pointer: expected …, got …` about a document that parsed
// but holds a wrong value.
//
// The text is read with yaml-cpp (JSON is YAML 1.2 flow style), whose nodes
// carry their byte offset: no JSON scanner of our own. These functions are
// for error paths; each call parses the whole text once.
#pragma once

#include <cstddef>
#include <optional>
#include <string_view>

namespace llmconform {

// 1-based line and column; the column counts bytes from the start of the line.
struct LineColumn {
  std::size_t line = 1;
  std::size_t column = 1;
  friend bool operator==(const LineColumn&, const LineColumn&) = default;
};

// The line and column of byte `offset` (0-based; clamped to the text).
LineColumn LineColumnOf(std::string_view text, std::size_t offset);

// The byte offset of the first character of the value that `pointer` (RFC
// 6901; "" is the whole document) names in the JSON `text`. nullopt when the
// text is not JSON, the pointer is malformed, or it names nothing there.
std::optional<std::size_t> LocateJsonPointer(std::string_view text, std::string_view pointer);

// The offset of the value `pointer` names or, when there is none, of its
// nearest ancestor that exists; the first non-blank of the text at worst.
std::size_t LocateNearestJsonPointer(std::string_view text, std::string_view pointer);

}  // namespace llmconform
