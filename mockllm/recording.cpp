#include "mockllm/recording.h"

#include <chrono>
#include <ctime>
#include <set>

#include "base/format.h"
#include "base/url.h"
#include "mockllm/canonical.h"
#include "mockllm/secrets.h"

namespace llmconform::mockllm {

using llmconform::Format;

bool UpstreamAnswer::TakeHead(const net::HttpResponse& head) {
  // No trace can hold it (nor a client's HTTP read it).
  if (head.status < 200 || head.status > 599) {
    error = Format("answered status {}, not a final HTTP status (200-599)", head.status);
    return false;
  }
  status = head.status;
  headers = head.fields;
  return true;
}

bool UpstreamAnswer::TakeRead(std::string_view bytes, std::int64_t t_ms, std::size_t max_chunks) {
  // An answer without end is not kept in memory without end.
  if (bytes.size() > kMaxRecordedBodyBytes - body_bytes) {
    error = Format("the answer is longer than {} bytes", kMaxRecordedBodyBytes);
    return false;
  }
  body_bytes += bytes.size();
  AppendRead(chunks, joined_reads, t_ms, bytes, max_chunks);
  return true;
}

std::string UpstreamAnswer::ContentType() const {
  std::string content_type = "application/octet-stream";
  for (const auto& [name, value] : headers) {
    if (Lower(name) == "content-type") content_type = value;
  }
  return content_type;
}

bool UpstreamAnswer::Streamed() const {
  return Lower(ContentType()).find("text/event-stream") != std::string::npos;
}

std::string UpstreamAnswer::Body() const {
  std::string body;
  body.reserve(body_bytes);
  for (const Chunk& c : chunks) body += c.raw;
  return body;
}

namespace {

// The trace id a file name gives: "a.trace.jsonl" → "a".
std::string TraceIdOf(const std::filesystem::path& out) {
  std::string name = out.filename().string();
  for (std::string_view suffix : {".trace.jsonl", ".jsonl"}) {
    if (name.ends_with(suffix) && name.size() > suffix.size()) {
      name.resize(name.size() - suffix.size());
      break;
    }
  }
  return name;
}

// Whether the file's last byte ends a line (a file written by hand may not).
bool EndsLine(const std::filesystem::path& out) {
  std::ifstream last(out, std::ios::binary | std::ios::ate);
  if (!last || last.tellg() <= 0) return true;
  last.seekg(-1, std::ios::end);
  return last.get() == '\n';
}

}  // namespace

std::expected<std::unique_ptr<Recording>, Error> Recording::Open(
    RecordingOptions options, std::shared_ptr<net::HttpClient> client) {
  std::unique_ptr<Recording> r(new Recording());
  auto upstream = llmconform::SplitHttpUrl(options.upstream);
  if (!upstream) {
    if (upstream.error() == llmconform::UrlError::kNoHost)
      return std::unexpected(Error{Format("--upstream \"{}\": no host", options.upstream)});
    return std::unexpected(
        Error{Format("--upstream \"{}\": expected an http:// or https:// URL", options.upstream)});
  }
  r->origin_ = upstream->origin;
  r->prefix_ = upstream->path;
  std::vector<std::vector<std::string>> redact_json;
  for (const std::string& p : options.redact_json) {
    auto tokens = PointerPatternTokens(p, "--redact-json");
    if (!tokens) return std::unexpected(tokens.error());
    redact_json.push_back(std::move(*tokens));
  }
  std::set<std::string> redact_headers;
  for (const std::string& h : options.redact_headers) redact_headers.insert(Lower(h));
  r->redactor_ = Redactor(std::move(redact_json), std::move(redact_headers));
  if (!client) {
    auto real = net::RealHttpClient(options.upstream_ca_file);
    if (!real) return std::unexpected(Error{Format("--upstream-ca {}", real.error().message)});
    client = std::move(*real);
  }
  r->client_ = std::move(client);
  if (options.trace_id.empty()) options.trace_id = TraceIdOf(options.out);
  const bool exists = std::filesystem::exists(options.out);
  if (exists && !options.append) {
    return std::unexpected(
        Error{Format("{}: the file exists (use --append to add to it)", options.out.string())});
  }
  if (exists) {
    auto trace = LoadTraceFile(options.out);
    if (!trace) return std::unexpected(trace.error());
    r->next_seq_ = static_cast<std::int64_t>(trace->exchanges.size()) + 1;
    if (!trace->exchanges.empty() && trace->exchanges.back().seq) {
      r->next_seq_ = *trace->exchanges.back().seq + 1;
    }
  }
  const bool ends_line = !exists || EndsLine(options.out);
  r->out_.open(options.out, std::ios::binary | std::ios::app);
  if (!r->out_)
    return std::unexpected(Error{Format("{}: cannot open for writing", options.out.string())});
  // The first exchange is not glued onto an unended last line.
  if (!ends_line) r->out_ << '\n';
  if (!exists) {
    OJson header = {{"format", kTraceFormat},
                    {"id", options.trace_id},
                    {"origin", "recorded"},
                    {"recorded_at", llmconform::UtcTimestamp(std::time(nullptr))},
                    {"upstream", RedactText(options.upstream)}};
    for (auto it = options.header_fields.begin(); it != options.header_fields.end(); ++it)
      header[it.key()] = *it;
    r->out_ << WriteTraceHeader(header) << '\n';
    r->out_.flush();
  }
  r->options_ = std::move(options);
  return r;
}

net::HttpRequest Recording::UpstreamRequest(const ForwardRequest& request) const {
  net::HttpRequest up{.method = request.method,
                      .url = origin_ + prefix_ + request.target,
                      .headers = {},
                      .body = request.body};
  for (const auto& [name, value] : request.headers) {
    if (!HopByHop(Lower(name))) up.headers.emplace_back(name, value);
  }
  up.headers.emplace_back("Accept-Encoding", "identity");
  return up;
}

std::expected<net::HttpResponse, net::HttpError> Recording::Send(
    const net::HttpRequest& request, const net::HttpHandlers& handlers) {
  const std::chrono::milliseconds limit = std::chrono::seconds(options_.upstream_timeout_seconds);
  // No total: a stream that keeps sending is never cut (a year stands for none).
  const net::HttpTimeouts timeouts{
      .connect = limit, .read = limit, .total = std::chrono::hours(24 * 365)};
  return client_->Send(request, timeouts, handlers);
}

void Recording::Record(const ForwardRequest& request, const UpstreamAnswer& answer, bool streamed,
                       bool complete) {
  WireExchange w{.method = request.method,
                 .path = request.path,
                 .request_headers = request.headers,
                 .request_body = request.body,
                 .status = answer.status,
                 .response_headers = answer.headers,
                 .pieces = answer.chunks,
                 .streamed = streamed,
                 .complete = complete,
                 .joined_reads = answer.joined_reads};
  Exchange x = redactor_.Record(w);
  std::lock_guard lock(file_mu_);
  x.seq = next_seq_++;
  out_ << WriteExchange(x) << '\n';
  out_.flush();
  ++written_;
}

std::size_t Recording::exchanges_written() const { return written_; }

}  // namespace llmconform::mockllm
