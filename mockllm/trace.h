// Traces in the `llmconform-trace/1` format (docs/trace-format.md): JSON Lines, a
// header line, then one exchange (request, response) a line.
//
// Reading is exact about what replay needs and keeps everything else: fields
// the model does not know are kept in `extra` and written back, so
// Write(Read(Write(t))) == Write(t). Errors name the file, line and column and
// the JSON pointer of the offending value:
//   "t.trace.jsonl:3:44: /response/status: expected integer, got string".
//
// A streamed response holds `chunks` ([{"t_ms","raw"}]: the wire bytes in the
// pieces they arrived in, `t_ms` after the request was sent). Pieces that are
// not valid UTF-8 (a read that split a character) are written as
// {"t_ms","raw_b64"}. Hand-written fixtures may give `events` instead:
//   [{"data": {...} | "text", "event"?: "name", "id"?: "7", "t_ms"?: 0},
//    {"comment": "keep-alive"}]
// which is expanded on load to standard SSE framing (protocols/wire/sse.h), one
// chunk per event; an object `data` is written as compact JSON.
//
// A non-streamed response holds `body` (any JSON, replayed as its compact
// serialisation with keys in file order) or `raw` / `raw_b64` (exact bytes,
// for bodies that are not JSON or whose exact spelling matters).
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/base64.h"
#include "base/error.h"
#include "base/json.h"
#include "base/json_locate.h"
#include "base/utf8.h"

namespace llmconform::mockllm {

using llmconform::Error;
// Traces keep keys in file order, so replayed bodies keep the recorded order.

inline constexpr std::string_view kTraceFormat = "llmconform-trace/1";

// The latest time a trace may name, in ms (a recorded piece's t_ms, a fault's
// wait, a HAR entry's time): about 31 years, so that no time overflows the
// replay clock's arithmetic.
inline constexpr std::int64_t kMaxTraceMs = 1'000'000'000'000;

struct Chunk {
  std::int64_t t_ms = 0;
  std::string raw;
  friend bool operator==(const Chunk&, const Chunk&) = default;
};

struct RecordedRequest {
  std::string method = "POST";
  std::string path;                 // e.g. "/v1/chat/completions"
  OJson headers = OJson::object();  // names as recorded (lower case by the recorder)
  std::optional<OJson> body;        // absent for a request without a body
  OJson extra = OJson::object();
  friend bool operator==(const RecordedRequest&, const RecordedRequest&) = default;
};

struct RecordedResponse {
  int status = 200;
  OJson headers = OJson::object();
  std::optional<OJson> body;       // JSON body
  std::optional<std::string> raw;  // exact body bytes (wins over body)
  std::vector<Chunk> chunks;       // streamed body
  bool streamed = false;           // `chunks` (or `events`) was given
  OJson extra = OJson::object();
  friend bool operator==(const RecordedResponse&, const RecordedResponse&) = default;

  // The body bytes a replay writes for a non-streamed response.
  std::string BodyBytes() const;
  // The header value (case-insensitive name) or "" when absent.
  std::string Header(std::string_view name) const;
};

struct Exchange {
  std::optional<std::int64_t> seq;
  RecordedRequest request;
  RecordedResponse response;
  std::optional<OJson> fault;  // see mockllm/fault.h
  OJson extra = OJson::object();
  std::size_t line = 0;  // 1-based line in the source, 0 when built in code
  friend bool operator==(const Exchange& a, const Exchange& b) {
    return a.seq == b.seq && a.request == b.request && a.response == b.response &&
           a.fault == b.fault && a.extra == b.extra;
  }
};

struct Trace {
  std::string id;
  OJson header = OJson::object();  // the whole header line (format, id, origin, …)
  std::vector<Exchange> exchanges;
  std::string source;  // the name errors use (a file path, "<memory>")
  friend bool operator==(const Trace& a, const Trace& b) {
    return a.id == b.id && a.header == b.header && a.exchanges == b.exchanges;
  }
};

// Parses a whole trace. `name` is used in error messages.
std::expected<Trace, Error> ParseTrace(std::string_view text, std::string_view name);
// A trace from JSON already parsed (the admin API's posted objects): `header`
// is checked as a header line and each element of `exchanges` (an array, or
// null for none) as an exchange line, exactly as ParseTrace checks them.
// Errors point into the object {header fields…, "exchanges": […]}
// ("/id", "/exchanges", "/exchanges/2/response/status": Error's pointer and
// what); llmconform::PlacedInText places them in the text the JSON came from. The exchanges get
// line 0; `name` becomes the trace's source.
std::expected<Trace, Error> TraceFromJson(OJson header, const OJson& exchanges,
                                          std::string_view name);
// Reads and parses the file at `path` (named by its path in errors).
std::expected<Trace, Error> LoadTraceFile(const std::filesystem::path& path);

// Line-level entry points, for tools that want every error of a file (lint).
// `line_no` is 1-based; errors carry "name:line:col: ".
std::expected<OJson, Error> ParseTraceHeader(std::string_view line, std::string_view name,
                                             std::size_t line_no);
std::expected<Exchange, Error> ParseExchange(std::string_view line, std::string_view name,
                                             std::size_t line_no);
// One line as JSON, without looking at its fields: the parse step of the two
// above (a raw NUL byte, too deep, invalid UTF-8, out-of-range numbers and
// syntax errors are located errors). Lint parses a line once with it.
std::expected<OJson, Error> ParseTraceLine(std::string_view line, std::string_view name,
                                           std::size_t line_no);

// An exchange from a parsed line, the error pointed (its pointer and what)
// but not placed: lint checks the parts of a line one by one, and places each
// error with llmconform::PlacedInText.
std::expected<Exchange, Error> ExchangeFromJson(const OJson& j);

// Calls `fn(line, line_no)` for each line of `text` that is not blank, the
// line without its end (LF or CRLF), line_no 1-based.
void ForEachTraceLine(std::string_view text,
                      const std::function<void(std::string_view line, std::size_t line_no)>& fn);
// The error for a trace without a header line.
Error EmptyTraceError(std::string_view name);

// What a replayed response header must be (a trace's response.headers, a
// fault's headers): a name that is an HTTP token (RFC 9110 §5.1) and a value
// without control characters (a tab allowed; §5.5). The problem, or nullopt.
std::optional<std::string> ResponseHeaderProblem(std::string_view name, std::string_view value);

// The headers that frame a message rather than describe it (Content-Length,
// Transfer-Encoding, Connection, Keep-Alive, TE, Trailer, Upgrade,
// Proxy-Connection) and Content-Encoding (bodies are kept decoded); any
// case. A recording may carry them; replay leaves them out, so the server's
// own framing is the only one (`mockllm lint` warns).
bool IsFramingHeader(std::string_view name);

// The header line or one exchange line, without the line end.
std::string WriteTraceHeader(const OJson& header);
std::string WriteExchange(const Exchange& exchange);
// WriteExchange's line appended to `out`.
void AppendExchange(std::string& out, const Exchange& exchange);
// The whole trace, every line ending in '\n'.
std::string WriteTrace(const Trace& trace);

// `raw_b64` pieces are base/base64.h; JSON strings must be valid UTF-8 (base/utf8.h).
using llmconform::Base64Decode;
using llmconform::Base64Encode;
using llmconform::IsValidUtf8;

}  // namespace llmconform::mockllm
