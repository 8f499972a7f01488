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
// The upstream is reached as mockllm/recording.h says: a response head of at
// most 64 KiB, connect and read timeouts of `upstream_timeout_seconds` (a
// slow stream is never cut short while bytes keep coming); an upstream that
// fails before its head is answered 502 mockllm_upstream_error, naming why.
#pragma once

#include <cstdint>
#include <expected>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

#include "mockllm/listen_options.h"
#include "mockllm/recording.h"

namespace llmconform::mockllm {

struct RecorderOptions {
  RecordingOptions recording;  // upstream, trace file, redaction
  // Where and how it listens (mockllm/http_listener.h); every handler may
  // block (it waits on the upstream) whatever `handler_may_block` says.
  ListenOptions listen{.threads = 16};
};

class Recorder {
 public:
  // Writes the header (unless appending) and starts serving. Errors: a bad
  // upstream URL or redact pointer, an existing file without `append`, an
  // unreadable file to append to or CA file, the port cannot be bound.
  // `client`: the upstream's HTTP client (null: the real one).
  static std::expected<std::unique_ptr<Recorder>, Error> Start(
      RecorderOptions options, std::shared_ptr<net::HttpClient> client = nullptr);
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
