// The one way outside JSON text is read: a depth limit, invalid UTF-8 and
// numbers out of range refused, and every problem returned as a located error
// "NAME:LINE:COL: what" (an Error with its position and `what` set) — never an exception, a stack
// overflow or an abort.
//
// simdjson parses (libsimdjson; several times nlohmann's speed on long
// strings) and the value is built as nlohmann's parser would build it: a
// non-negative integer unsigned, a negative one signed, -0 a signed integer,
// a repeated key's last value at its first place. Text simdjson refuses is
// pre-scanned (PrescanJsonText) and handed to nlohmann, which locates the
// error. A thread keeps one parser for texts up to 64 KiB.
//
// nlohmann's parser rejects invalid UTF-8 and reports a number beyond double's
// range by throwing out_of_range (which callers catching parse_error missed);
// its dump() and comparison recurse once per nesting level. Readers of bytes
// from outside (oracle input, specs, rules, traces, journals, request bodies,
// JSON a model wrote) go through ReadJson so that these cases are input
// errors like any other.
#pragma once

#include <cstddef>
#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "base/json_locate.h"

namespace llmconform {

// Arrays and objects nested deeper than this are refused: deep enough for any
// real document, shallow enough that recursive walks of the value are safe.
inline constexpr std::size_t kMaxJsonDepth = 512;

struct JsonReadOptions {
  std::size_t max_depth = kMaxJsonDepth;
  // The line number of the text's first line, for text that is one line of
  // a larger file (JSON Lines): errors then name the file's line.
  std::size_t first_line = 1;
};

// `text` parsed; NAME names the text in the message ("stdin", a file path).
// An error has kind kInvalidInput, its position (the line counted from
// options.first_line) and `what` alone ("number 1e999 is out of range"), all
// valid UTF-8.
std::expected<nlohmann::json, Error> ReadJson(std::string_view name, std::string_view text,
                                              const JsonReadOptions& options = {});
// The same, keeping object members in document order.
std::expected<nlohmann::ordered_json, Error> ReadOrderedJson(std::string_view name,
                                                             std::string_view text,
                                                             const JsonReadOptions& options = {});

// "line LINE, column COL: what" of a ReadJson error, for messages that name
// the text otherwise ("the request body is not valid JSON: line 1, column 9: …").
std::string AtLineColumn(const Error& e);

// Lenient forms for text that may or may not be JSON (a body, an argument
// string a model wrote): the value, or a discarded value (is_discarded()) for
// anything ReadJson refuses. The drop-in for nlohmann's parse(text, nullptr,
// false), which lets deep nesting through.
nlohmann::json ReadJsonOrDiscarded(std::string_view text);
nlohmann::ordered_json ReadOrderedJsonOrDiscarded(std::string_view text);

// The pre-scan alone: the first problem ReadJson finds before parsing (too
// deep, invalid UTF-8 in a string, a number out of range) or nullopt. The
// offset is 0-based; syntax errors are left to the parser.
struct JsonTextProblem {
  std::size_t offset = 0;
  std::string what;
};
std::optional<JsonTextProblem> PrescanJsonText(std::string_view text,
                                               std::size_t max_depth = kMaxJsonDepth);

// `j` as JSON text, with invalid UTF-8 in strings replaced by U+FFFD instead
// of throwing (nlohmann's type_error.316). The compact form (indent < 0) is
// byte for byte nlohmann's dump(-1, ' ', false, replace), written faster:
// a valid UTF-8 string is copied in runs between the bytes JSON escapes
// (base/json_dump.cpp). Recurses once per nesting level, as nlohmann does.
std::string DumpJson(const nlohmann::json& j, int indent = -1);
std::string DumpJson(const nlohmann::ordered_json& j, int indent = -1);
// The compact DumpJson of `j`, appended to `out`.
void AppendJson(std::string& out, const nlohmann::json& j);
void AppendJson(std::string& out, const nlohmann::ordered_json& j);

}  // namespace llmconform
