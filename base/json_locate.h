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
#include <string>
#include <string_view>
#include <unordered_map>

#include "base/error.h"

namespace llmconform {

// 1-based line and column; the column counts bytes from the start of the line.
struct LineColumn {
  std::size_t line = 1;
  std::size_t column = 1;
  friend bool operator==(const LineColumn&, const LineColumn&) = default;
};

// The line and column of byte `offset` (0-based; clamped to the text).
LineColumn LineColumnOf(std::string_view text, std::size_t offset);

// yaml-cpp's scanner holds about 130 bytes per byte of a flow collection it
// reads: a text longer than this is not parsed to place a pointer (its
// errors stand at its first non-blank, and their pointer says where).
inline constexpr std::size_t kMaxLocatedBytes = std::size_t{1} << 20;

// The byte offset of the first character of the value that `pointer` (RFC
// 6901; "" is the whole document) names in the JSON `text`. nullopt when the
// text is not JSON or longer than kMaxLocatedBytes, the pointer is
// malformed, or it names nothing there.
std::optional<std::size_t> LocateJsonPointer(std::string_view text, std::string_view pointer);

// The offset of the value `pointer` names or, when there is none, of its
// nearest ancestor that exists; the first non-blank of the text at worst.
std::size_t LocateNearestJsonPointer(std::string_view text, std::string_view pointer);

// Every value's offset in `text`, found in one pass, for a caller that
// places many pointers in one text (lint: each problem of a line): each
// Nearest is then a lookup, where LocateNearestJsonPointer parses the text
// again. The table holds every value's pointer, within kTableBytesPerByte
// bytes per byte of the text (a long key above a long array repeats in every
// element's pointer); past that, or when a key repeats in an object, there
// is no table and each Nearest walks the text as LocateNearestJsonPointer
// does. Keeps a view of `text`, which must outlive it.
class JsonOffsets {
 public:
  static constexpr std::size_t kTableBytesPerByte = 16;

  explicit JsonOffsets(std::string_view text);
  // As LocateNearestJsonPointer(text, pointer).
  std::size_t Nearest(std::string_view pointer) const;

 private:
  std::string_view text_;
  std::unordered_map<std::string, std::size_t> offsets_;  // by pointer, "" the root
  bool table_ = false;                                    // offsets_ holds every value
  std::size_t first_ = 0;                                 // the first non-blank
};

// `e` placed in the JSON `text` read from the file `name`: at the value its
// pointer names (the root when it has none), or at its nearest ancestor that
// exists ("name:line:col: /pointer: what"). `first_line` is the file's line
// of the text's first line (one line of JSON Lines); `offsets`, when given,
// are those of `text`.
Error PlacedInText(const Error& e, std::string_view name, std::string_view text,
                   std::size_t first_line = 1, const JsonOffsets* offsets = nullptr);

}  // namespace llmconform
