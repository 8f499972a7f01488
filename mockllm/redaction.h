// How a recorded exchange is cleaned before it is written, shared by
// `mockllm record` (mockllm/recorder.h) and `mockllm import`
// (mockllm/import.h): secrets removed (mockllm/secrets.h), hop-by-hop headers
// left out, bodies kept as JSON only when that spells them exactly.
#pragma once

#include <set>
#include <string>
#include <string_view>
#include <unordered_map>
#include <utility>
#include <vector>

#include "mockllm/trace.h"

namespace llmconform::mockllm {

// Headers that describe one connection, not the exchange (host,
// transfer-encoding, content-length, content-encoding, …): never written.
// `lower` is a lower-case header name.
bool HopByHop(std::string_view lower);

// `s` in lower case (ASCII).
std::string Lower(std::string s);

// Builds a trace's headers object from (lower-case name, value) pairs in the
// order they came: a repeated name keeps its first place and its last value,
// as assigning through OJson's operator[] would, but in linear time
// (operator[] on ordered_json searches every member: 20 000 headers took
// seconds).
class HeaderObject {
 public:
  void Set(std::string lower, std::string value);
  OJson Take() &&;  // the object; the builder is then empty

 private:
  std::vector<std::pair<std::string, std::string>> pairs_;
  std::unordered_map<std::string, std::size_t> at_;  // name → index in pairs_
};

// `text` parsed, or discarded when it is not JSON or base/json_read.h refuses
// it (too deep, invalid UTF-8, a number out of range).
OJson ParseShallowJson(std::string_view text);

// Secret fields (mockllm/secret_rules.json) and secret-looking text anywhere
// in `j` become "[redacted]". Replay applies it to incoming requests before
// comparing them with recorded ones, so a recording matches its own client.
// True when anything was replaced.
bool RedactSecrets(OJson& j);
bool RedactSecrets(nlohmann::json& j);

// Redacts a stream read in pieces as one text: the chunks are joined, every
// secret FindSecretsInText finds in the joined bytes (one split across reads
// too) is replaced by "[redacted]" in the chunk where it starts, and its bytes
// in later chunks are removed. Each chunk keeps its place and time; a chunk
// that held nothing but part of a secret is left empty (replay writes no
// empty piece). True when anything was replaced.
bool RedactChunks(std::vector<Chunk>& chunks);
// The same when the caller holds the joined bytes already: `joined` must be
// the chunks' bytes joined, in order.
bool RedactChunks(std::vector<Chunk>& chunks, std::string_view joined);

// The most chunks one recorded body keeps. Each read is a chunk with its time
// until then; past it every read joins the last chunk, and the exchange's
// `note` says how many did (two million one-byte reads would otherwise be
// two million chunks: hundreds of MB held and a trace line of tens of MB).
inline constexpr std::size_t kMaxRecordedChunks = 16384;

// Adds one read of a body that arrived at `t_ms` to `chunks`: a chunk of its
// own while there are fewer than `max_chunks`, else joined to the last one
// (which keeps its time); `joined` counts the reads joined.
void AppendRead(std::vector<Chunk>& chunks, std::size_t& joined, std::int64_t t_ms,
                std::string_view bytes, std::size_t max_chunks = kMaxRecordedChunks);

// One exchange as a recorder saw it on the wire, before anything is redacted.
struct WireExchange {
  std::string method = "POST";
  std::string path;
  std::vector<std::pair<std::string, std::string>> request_headers;  // names lower-cased
  std::string request_body;
  int status = 0;
  std::vector<std::pair<std::string, std::string>> response_headers;  // names as received
  std::vector<Chunk> pieces;     // the response body as read, `t_ms` since the request was sent
  bool streamed = false;         // an SSE answer: kept as `chunks`, otherwise as one body
  bool complete = true;          // the body ended normally (false: it broke off)
  std::size_t joined_reads = 0;  // reads AppendRead joined to the last piece
};

class Redactor {
 public:
  // `redact_json`: JSON pointer patterns split into tokens (`*` for any key or
  // index); `redact_headers`: lower-case header names, besides the secret ones.
  Redactor(std::vector<std::vector<std::string>> redact_json = {},
           std::set<std::string> redact_headers = {})
      : redact_json_(std::move(redact_json)), redact_headers_(std::move(redact_headers)) {}

  // Whether header `lower` (with `value`) is a secret to redact whole.
  bool SecretHeader(const std::string& lower, std::string_view value) const;
  // The value to write for header `lower`: "[redacted]" for a secret header,
  // otherwise `value` with secret-looking text redacted.
  std::string HeaderValue(const std::string& lower, std::string_view value) const;
  // Values at the `redact_json` pointers, secret-named keys and secret-looking
  // text anywhere become "[redacted]".
  OJson Body(OJson body) const;
  // A request body: JSON (redacted) when `raw` parses, the text otherwise.
  OJson RequestBody(std::string_view raw) const;
  // Sets `r.body` (JSON, when its compact form spells `raw` exactly or
  // redaction changed it) or `r.raw` (the exact bytes, redacted) from a
  // non-streamed response body. Empty `raw` sets neither.
  void SetResponseBody(RecordedResponse& r, std::string_view raw) const;
  // The exchange to write for `x` (no `seq`): hop-by-hop headers left out,
  // header values, bodies and stream text redacted; a stream that broke off
  // gets a {"cut_after_bytes": N} fault so that replay breaks off the same way;
  // reads joined to the last piece (AppendRead) are told in a `note`.
  Exchange Record(const WireExchange& x) const;

 private:
  std::vector<std::vector<std::string>> redact_json_;
  std::set<std::string> redact_headers_;
};

}  // namespace llmconform::mockllm
