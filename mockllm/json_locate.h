// Where a JSON pointer's value starts in JSON text, so that errors about a
// parsed document can name a column ("trace.jsonl:3:41: /response/status: …").
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>

namespace mockllm {

// A problem with one value of a parsed document: its JSON pointer and what is
// wrong ("expected integer, got string"). Callers turn it into a located Error.
struct PointedError {
  std::string pointer;
  std::string message;
};

// The byte offset in `json_text` of the first character of the value named
// by `pointer` (RFC 6901, "" for the whole document). nullopt when the text
// holds no such value or is not valid JSON up to it.
std::optional<std::size_t> LocateJsonPointer(std::string_view json_text, std::string_view pointer);

// The byte offset of the value named by `pointer`, or of the nearest ancestor
// that exists (the whole document at worst, offset of its first non-blank).
std::size_t LocateNearest(std::string_view json_text, std::string_view pointer);

}  // namespace mockllm
