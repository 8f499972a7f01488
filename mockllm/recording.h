// mockllm::Recording: forwarding requests to a real upstream and writing what
// it answered to a trace, shared by `mockllm record` (recorder.h, which
// serves it on a port of its own and streams each answer back as it arrives)
// and `mockllm serve --proxy` (proxy.h, which calls it in process).
//
// The upstream is reached through net/http_client.h: its response head may
// take at most net::kMaxResponseHeadBytes (an upstream streaming header lines
// without end fails the exchange, "the response head … is longer than 65536
// bytes", and nothing grows with it); connecting and every silence while
// connected wait up to `upstream_timeout_seconds` (a slow stream that keeps
// sending is never cut); there is no limit on the whole exchange.
//
// What is written: see recorder.h. Each exchange is redacted (redaction.h)
// and appended to the file, flushed at once.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <fstream>
#include <memory>
#include <mutex>
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "mockllm/redaction.h"
#include "mockllm/trace.h"
#include "net/http_client.h"

namespace llmconform::mockllm {

// The most of one upstream answer's body held: past it the exchange ends as
// the upstream failing (502, or the stream cut) and is not recorded whole. An
// upstream status outside 200-599 (a 1xx is no final answer) is answered 502
// and not recorded: no trace could hold it.
inline constexpr std::size_t kMaxRecordedBodyBytes = std::size_t{256} << 20;

// What `record` and `serve --proxy` share: where to forward, where to write,
// what to redact.
struct RecordingOptions {
  std::string upstream;       // "https://api.openai.com", "http://127.0.0.1:8080/prefix"
  std::filesystem::path out;  // the trace file
  bool append = false;        // add to an existing trace instead of refusing it
  std::vector<std::string> redact_headers;  // besides the built-in secret headers
  std::vector<std::string> redact_json;     // JSON pointers, `*` for any key or index
  std::string trace_id;                     // default: the file name before ".trace.jsonl"
  OJson header_fields = OJson::object();    // extra header fields (provider, model, notes)
  int upstream_timeout_seconds = 600;       // connect, and each silence once connected
  std::string upstream_ca_file;  // PEM CA bundle for an https upstream ("": the system's)
  std::size_t max_chunks = kMaxRecordedChunks;  // chunks a recorded body keeps (AppendRead)
};

// One request to forward, as the client sent it.
struct ForwardRequest {
  std::string method;
  std::string target;  // path and query, put after the upstream's path prefix
  std::string path;    // the path as the trace records it (HttpRequest::path)
  std::vector<std::pair<std::string, std::string>> headers;  // names lower-cased
  std::string body;
};

// An upstream answer as it is read, with the times of its reads.
struct UpstreamAnswer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // as received, in order
  std::vector<Chunk> chunks;     // every read, `t_ms` since the request was sent (AppendRead)
  std::size_t joined_reads = 0;  // reads joined to the last of `chunks`
  std::size_t body_bytes = 0;    // the bytes of `chunks`
  std::string error;             // why TakeHead or TakeRead refused

  // Takes the head. False (`error` says why) for a status outside 200-599.
  bool TakeHead(const net::HttpResponse& head);
  // Adds one read that arrived at `t_ms`. False (`error` says why) when the
  // body would pass kMaxRecordedBodyBytes.
  bool TakeRead(std::string_view bytes, std::int64_t t_ms, std::size_t max_chunks);
  // The content type received ("application/octet-stream" when none).
  std::string ContentType() const;
  // An event stream: recorded as `chunks`, relayed as read.
  bool Streamed() const;
  std::string Body() const;  // the chunks joined
};

class Recording {
 public:
  // Writes the trace header (unless appending). Errors: a bad upstream URL or
  // redact pointer, an existing file without `append`, an unreadable file to
  // append to, an unreadable CA file.
  // `client`: null for the real one (net::RealHttpClient with the CA file).
  static std::expected<std::unique_ptr<Recording>, Error> Open(
      RecordingOptions options, std::shared_ptr<net::HttpClient> client = nullptr);
  Recording(const Recording&) = delete;
  Recording& operator=(const Recording&) = delete;

  const RecordingOptions& options() const { return options_; }
  // The call to the upstream for `request`: its URL under the upstream,
  // hop-by-hop headers left out, "Accept-Encoding: identity" asked for.
  net::HttpRequest UpstreamRequest(const ForwardRequest& request) const;
  // Sends `request` upstream with the upstream timeouts (connect and read:
  // upstream_timeout_seconds; no total). Thread-safe.
  std::expected<net::HttpResponse, net::HttpError> Send(const net::HttpRequest& request,
                                                        const net::HttpHandlers& handlers);
  // Redacts the exchange and appends it to the file. Thread-safe.
  void Record(const ForwardRequest& request, const UpstreamAnswer& answer, bool streamed,
              bool complete);
  std::size_t exchanges_written() const;

 private:
  Recording() = default;
  RecordingOptions options_;
  std::string origin_;  // "scheme://host[:port]" of the upstream
  std::string prefix_;  // its path, put before every request's target
  Redactor redactor_;
  std::shared_ptr<net::HttpClient> client_;
  std::mutex file_mu_;
  std::ofstream out_;
  std::int64_t next_seq_ = 1;
  std::atomic<std::size_t> written_ = 0;
};

}  // namespace llmconform::mockllm
