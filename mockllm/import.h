// `mockllm import`: recordings made by other tools turned into
// `llmconform-trace/1` traces (docs/trace-format.md).
//
// Readers take text, so tests and fuzzers need no files:
//   - vcrpy / pytest-recording YAML cassettes (format versions 1–7):
//     `interactions[].request{method, uri, body, headers}` and
//     `response{status: {code, message} | code, headers, body: {string}}`.
//     Bodies may be plain strings, YAML `!!binary` (base64), or one of the
//     parsed variants (`parsed_body:`, `body: {type: json|text, content}`, or the
//     body itself as a JSON mapping).
//   - HAR 1.2: `log.entries[].request{method, url, headers, postData.text}`,
//     `response{status, headers, content{text, encoding?: "base64"}}`,
//     `timings{wait, receive}`.
// Bodies whose `content-encoding` is gzip, deflate or br are decoded; a body
// that claims a coding but is already text is taken as decoded. A body that
// cannot be decoded is kept byte for byte (written as `raw_b64`) with a note.
//
// The request path is kept without its query (as `mockllm record` and the
// server's matching see it); a query goes to the request's `query` field.
// Only exchanges of an API surface the toolkit reads (wire::SurfaceOfPath:
// Chat Completions, the Responses API) are imported by default; `paths`
// narrows that to Chat Completions or widens it to every exchange. The others
// are skipped and counted. A recording with nothing to import is an error.
// The trace header's `surface` names the surface when every exchange kept
// is of one. Headers and bodies go through
// the recorder's redaction (mockllm/redaction.h). An SSE body becomes one chunk
// per event and the trace header says `"chunking": "events"`; chunk times come
// from HAR timings (every chunk at `wait`, the last at `wait + receive`) and
// are 0 for cassettes, which record no timing.
//
// Errors name the source, line and column: "c.yaml:12:5: …", as does a body
// past the bounds of ImportOptions (a decompression bomb).
#pragma once

#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/lint.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {

// Which exchanges `import` keeps.
enum class ImportPaths {
  kSurfaces,  // those of a known API surface (the default)
  kChat,      // Chat Completions only (`--only-chat`)
  kAll,       // every exchange (`--all-paths`)
};

struct ImportOptions {
  std::string provider;  // header `provider`; "" infers it from the request host
  std::string trace_id;  // "" derives it from the source name (see TraceStem)
  ImportPaths paths = ImportPaths::kSurfaces;
  // Bounds of one recording (a few KB of nested gzip can name gigabytes):
  // what all its bodies may decode to, and the SSE events all its streams
  // may hold. Besides, a body decodes to at most 100 times its encoded size
  // (or 1 MiB, whichever is more). Past any of them the import is refused,
  // located at the body (file:line:col).
  std::size_t max_decoded_bytes = std::size_t{256} << 20;
  std::size_t max_events = std::size_t{1} << 18;
};

struct ImportResult {
  Trace trace;
  std::size_t skipped = 0;         // entries left out (not of the surfaces kept)
  std::vector<std::string> notes;  // "interaction 3: response body kept as raw_b64: …"
};

// A vcrpy-style YAML cassette.
std::expected<ImportResult, Error> ParseCassette(std::string_view text, std::string_view name,
                                                 const ImportOptions& options = {});
// A HAR 1.2 document.
std::expected<ImportResult, Error> ParseHar(std::string_view text, std::string_view name,
                                            const ImportOptions& options = {});
// HAR when the first non-blank byte (after a byte order mark) is '{', a
// cassette otherwise. This form takes the text over: a HAR is parsed in place
// (its buffer grown by the few bytes the parser may read past the end) and
// the text is freed before this returns; a HAR longer than kMaxLocatedBytes
// (base/json_locate.h), whose errors are all placed at its first non-blank,
// as soon as it is parsed. `mockllm import` reads files so.
std::expected<ImportResult, Error> ParseRecording(std::string&& text, std::string_view name,
                                                  const ImportOptions& options = {});
// The same on a copy of `text`.
std::expected<ImportResult, Error> ParseRecording(std::string_view text, std::string_view name,
                                                  const ImportOptions& options = {});

// Writes `trace` to `path` atomically (base/atomic_file.h) a line at a time:
// each line is linted (mockllm/lint.h) before it is written, so the whole
// text is never held. Every exchange is freed once serialised, on every
// path: the caller's trace.exchanges are left empty. When the trace does not
// pass lint, nothing is written (the folders of `path` may have been made)
// and the report lists every problem, even if writing failed too; otherwise
// the file is in place. Error: it could not be written.
std::expected<LintReport, Error> WriteLintedTrace(Trace& trace, const std::filesystem::path& path);

// The file name of `source` without its folder and its recording suffix
// (.yaml, .yml, .har, .json), characters other than [A-Za-z0-9._-] as '-':
// "tests/c/test_x[a b].yaml" -> "test_x-a-b-".
std::string TraceStem(std::string_view source);

// The provider a request URL's host belongs to ("api.groq.com" -> "groq"),
// "" when unknown.
std::string ProviderOfUrl(std::string_view url);

// The traces as one HAR 1.2 document (`mockllm export --har`). Streamed
// bodies are the chunks joined; bytes that are not UTF-8 are base64 with
// `encoding: "base64"`; faults are named in the entry's `comment`.
nlohmann::ordered_json TracesToHar(const std::vector<Trace>& traces, std::string_view version);

}  // namespace llmconform::mockllm
