// What the readers of `mockllm import` (import_cassette.cpp, import_har.cpp)
// hand to the part they share (import.cpp): the request/response pairs of a
// recording, before they become a trace. Internal to mockllm_import.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mockllm/import.h"

namespace llmconform::mockllm {

using Headers = std::vector<std::pair<std::string, std::string>>;

// Where a body is in the recording, for an error about it: a YAML node's
// line and column (0-based, as yaml-cpp marks them), or a JSON pointer into
// a HAR document.
struct BodyAt {
  int line = -1, column = -1;
  std::string pointer;
};

// One request/response pair as a recording holds it, before it becomes an
// Exchange.
struct RawEntry {
  std::string where;  // "interaction 3", "entry 7"
  std::string method = "POST";
  std::string url;
  Headers request_headers;
  std::optional<std::string> request_bytes;
  std::optional<OJson> request_json;  // a parsed-body variant
  int status = 200;
  Headers response_headers;
  std::optional<std::string> response_bytes;
  std::optional<OJson> response_json;  // a parsed-body variant
  std::int64_t first_ms = 0;
  std::int64_t last_ms = 0;
  BodyAt request_at, response_at;
};

// "file:line:col" of a body, as the reader of its recording finds it.
using LocateBody = std::function<std::string(const BodyAt&)>;

// The first byte of `text` that is not a space, tab, CR or LF, after a UTF-8
// byte order mark; 0 when none.
inline char FirstNonBlank(std::string_view text) {
  if (text.starts_with("\xEF\xBB\xBF")) text.remove_prefix(3);
  for (char c : text) {
    if (c != ' ' && c != '\n' && c != '\r' && c != '\t') return c;
  }
  return 0;
}

// Joins the entries into a trace: the surface filter of `options.paths`,
// decoding (within the file's budgets of `options`), redaction, one chunk per
// SSE event. `format` is the header's `source_format` ("vcr", "har"). An
// error about a body is located by `locate`; the entries are consumed.
std::expected<ImportResult, Error> Assemble(std::vector<RawEntry> entries, std::string_view name,
                                            std::string_view format, const ImportOptions& options,
                                            const LocateBody& locate);

}  // namespace llmconform::mockllm
