// mockllm::Recorder: a recording proxy. Clients talk to it as to the
// upstream (an OpenAI-compatible endpoint, http or https); it forwards every
// request, streams the answer back as the bytes arrive, and appends each
// finished exchange to a trace file, flushed at once, secrets redacted first.
//
// What is written:
//   - request and response headers, names lower-cased, hop-by-hop headers
//     left out; the values of authorization, api-key, x-api-key, cookie,
//     set-cookie (mockllm/secrets.h) and of every `redact_headers` name are
//     "[redacted]";
//   - bodies: JSON when the body is JSON that its compact form spells
//     exactly, `raw` text otherwise; values at `redact_json` pointers (in the
//     request and the response body), values of secret-named keys and
//     secret-looking text anywhere become "[redacted]";
//   - streams (content type text/event-stream): `chunks`, each read as it
//     arrived with `t_ms` since the request was sent; past `max_chunks`
//     reads, each further read joins the last chunk and the exchange's
//     `note` says so (mockllm/redaction.h, AppendRead);
//   - an upstream stream that breaks off is kept, with a
//     {"cut_after_bytes": N} fault so that replay breaks off the same way.
// An exchange whose client went away before the end is not written.
// Upstream reads wait up to `upstream_timeout_seconds` between bytes: a slow
// stream is never cut short by an idle timeout below that.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mockllm/redaction.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {

// The most of one upstream answer's body the recorder holds: past it the
// exchange ends as the upstream failing (502, or the stream cut) and is not
// recorded whole. An upstream status outside 200-599 (a 1xx is no final
// answer) is answered 502 and not recorded: no trace could hold it.
inline constexpr std::size_t kMaxRecordedBodyBytes = std::size_t{256} << 20;

struct RecorderOptions {
  std::string upstream;       // "https://api.openai.com", "http://127.0.0.1:8080/prefix"
  std::filesystem::path out;  // the trace file
  bool append = false;        // add to an existing trace instead of refusing it
  std::string host = "127.0.0.1";
  int port = 0;
  std::vector<std::string> redact_headers;  // besides the built-in secret headers
  std::vector<std::string> redact_json;     // JSON pointers, `*` for any key or index
  std::string trace_id;                     // default: the file name before ".trace.jsonl"
  OJson header_fields = OJson::object();    // extra header fields (provider, model, notes)
  int upstream_timeout_seconds = 600;
  std::string upstream_ca_file;  // PEM CA bundle for an https upstream ("": the system's)
  std::size_t max_body_bytes = 16 * 1024 * 1024;
  int threads = 16;
  std::size_t max_chunks = kMaxRecordedChunks;  // chunks a recorded body keeps (AppendRead)
};

class Recorder {
 public:
  // Writes the header (unless appending) and starts serving. Errors: a bad
  // upstream URL or redact pointer, an existing file without `append`, an
  // unreadable file to append to, the port cannot be bound.
  static std::expected<std::unique_ptr<Recorder>, Error> Start(RecorderOptions options);
  ~Recorder();
  Recorder(const Recorder&) = delete;
  Recorder& operator=(const Recorder&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT"
  std::size_t exchanges_written() const;
  // Stops serving; requests in flight to the upstream are cancelled. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit Recorder(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace llmconform::mockllm
