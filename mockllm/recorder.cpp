#include "mockllm/recorder.h"

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <ctime>
#include <deque>
#include <fstream>
#include <mutex>
#include <set>
#include <thread>

#include "base/format.h"
#include "base/url.h"
#include "mockllm/canonical.h"
#include "mockllm/http_listener.h"
#include "mockllm/redaction.h"
#include "mockllm/secrets.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
using llmconform::wire::MakeErrorJson;
using Clock = std::chrono::steady_clock;

// A read joins the one before it in the queue to the client when that one is
// smaller than this and not yet written: a client slower than many small
// reads is not handed a queue entry per read.
constexpr std::size_t kJoinPendingBelow = 16 * 1024;

// origin: what httplib::Client takes; path: put before every request path.
std::expected<llmconform::UrlParts, Error> ParseUpstream(const std::string& url) {
  auto parts = llmconform::SplitHttpUrl(url);
  if (parts) return std::move(*parts);
  if (parts.error() == llmconform::UrlError::kNoHost)
    return std::unexpected(Error{Format("--upstream \"{}\": no host", url)});
  return std::unexpected(
      Error{Format("--upstream \"{}\": expected an http:// or https:// URL", url)});
}

// One proxied exchange, shared by the handler, the upstream thread and the
// content provider streaming the answer back.
struct Flow {
  std::mutex mu;
  std::condition_variable cv;
  bool headers_ready = false;
  bool finished = false;     // the upstream request is over
  bool upstream_ok = false;  // …and ended cleanly
  bool client_gone = false;
  bool recorded = false;  // the exchange is written (RecordOnce)
  int status = 0;
  httplib::Headers headers;
  std::string error;
  std::deque<std::string> pending;  // read from upstream, not yet written to the client
  std::vector<Chunk> chunks;        // everything read, with times (AppendRead)
  std::size_t joined_reads = 0;     // reads joined to the last of `chunks`
  std::size_t body_bytes = 0;       // the bytes of `chunks`
  httplib::Client* client = nullptr;
  std::thread worker;
};

}  // namespace

struct Recorder::Impl {
  RecorderOptions options;
  llmconform::UrlParts upstream;
  Redactor redactor;
  HttpListener http;
  int port = 0;

  std::mutex file_mu;
  std::ofstream out;
  std::int64_t next_seq = 1;
  std::atomic<std::size_t> written = 0;

  std::mutex flows_mu;
  std::set<std::shared_ptr<Flow>> flows;
  bool stopping = false;

  void Write(Exchange x) {
    std::lock_guard lock(file_mu);
    x.seq = next_seq++;
    out << WriteExchange(x) << '\n';
    out.flush();
    ++written;
  }

  void Record(const httplib::Request& req, Flow& flow, bool streamed) {
    WireExchange w{.method = req.method,
                   .path = req.path,
                   .request_headers = RequestHeaders(req.headers),
                   .request_body = req.body,
                   .status = flow.status,
                   .response_headers = {flow.headers.begin(), flow.headers.end()},
                   .pieces = flow.chunks,
                   .streamed = streamed,
                   .complete = flow.upstream_ok,
                   .joined_reads = flow.joined_reads};
    Write(redactor.Record(w));
  }

  // Records a streamed flow once, unless its client left before the end.
  void RecordOnce(const httplib::Request& req, Flow& flow) {
    {
      std::lock_guard lock(flow.mu);
      if (flow.recorded || flow.client_gone) return;
      flow.recorded = true;
    }
    Record(req, flow, true);
  }

  void RunUpstream(const std::shared_ptr<Flow>& flow, httplib::Request upstream_req) {
    httplib::Client cli(upstream.origin);
    cli.set_connection_timeout(30, 0);
    cli.set_read_timeout(options.upstream_timeout_seconds, 0);
    cli.set_write_timeout(options.upstream_timeout_seconds, 0);
    cli.set_decompress(false);
    cli.set_keep_alive(false);
    cli.set_follow_location(false);
    if (!options.upstream_ca_file.empty()) cli.set_ca_cert_path(options.upstream_ca_file);
    {
      std::lock_guard lock(flow->mu);
      flow->client = &cli;
    }
    const Clock::time_point t0 = Clock::now();
    upstream_req.response_handler = [flow](const httplib::Response& r) {
      std::lock_guard lock(flow->mu);
      // No trace can hold it (nor the client's HTTP read it): refused with a
      // 502, and nothing is recorded.
      if (r.status < 200 || r.status > 599) {
        flow->error = Format("answered status {}, not a final HTTP status (200-599)", r.status);
        return false;
      }
      flow->status = r.status;
      flow->headers = r.headers;
      flow->headers_ready = true;
      flow->cv.notify_all();
      return !flow->client_gone;
    };
    upstream_req.content_receiver = [flow, t0, max_chunks = options.max_chunks](
                                        const char* data, std::size_t n, std::uint64_t,
                                        std::uint64_t) {
      const auto t_ms =
          std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
      std::lock_guard lock(flow->mu);
      if (flow->client_gone) return false;
      // An answer without end is not kept in memory without end.
      if (n > kMaxRecordedBodyBytes - flow->body_bytes) {
        flow->error = Format("the answer is longer than {} bytes", kMaxRecordedBodyBytes);
        return false;
      }
      flow->body_bytes += n;
      AppendRead(flow->chunks, flow->joined_reads, t_ms, std::string_view(data, n), max_chunks);
      // Small reads the client has not taken yet go out together.
      if (!flow->pending.empty() && flow->pending.back().size() < kJoinPendingBelow) {
        flow->pending.back().append(data, n);
      } else {
        flow->pending.emplace_back(data, n);
      }
      flow->cv.notify_all();
      return true;
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    const bool ok = cli.send(upstream_req, res, err);
    std::lock_guard lock(flow->mu);
    flow->client = nullptr;
    flow->finished = true;
    flow->upstream_ok = ok;
    if (!ok && flow->error.empty()) flow->error = httplib::to_string(err);
    flow->cv.notify_all();
  }

  void Forget(const std::shared_ptr<Flow>& flow) {
    if (flow->worker.joinable()) flow->worker.join();
    std::lock_guard lock(flows_mu);
    flows.erase(flow);
  }

  void Handle(const httplib::Request& req, httplib::Response& res) {
    auto flow = std::make_shared<Flow>();
    {
      std::lock_guard lock(flows_mu);
      if (stopping)
        return AnswerJson(res, 503, MakeErrorJson("mockllm record is stopping", "server_error"));
      flows.insert(flow);
    }
    httplib::Request up;
    up.method = req.method;
    up.path = upstream.path + req.target;
    for (const auto& [name, value] : RequestHeaders(req.headers)) {
      if (!HopByHop(name)) up.headers.emplace(name, value);
    }
    up.headers.emplace("Accept-Encoding", "identity");
    up.body = req.body;
    flow->worker = std::thread(
        [this, flow, up = std::move(up)]() mutable { RunUpstream(flow, std::move(up)); });

    std::unique_lock lock(flow->mu);
    flow->cv.wait(lock, [&] { return flow->headers_ready || flow->finished; });
    if (!flow->headers_ready) {
      const std::string error = flow->error;
      lock.unlock();
      Forget(flow);
      return AnswerJson(res, 502,
                        MakeErrorJson(Format("upstream {} did not answer {} {}: {}",
                                             options.upstream, req.method, req.path, error),
                                      "mockllm_upstream_error"));
    }
    res.status = flow->status;
    std::string content_type = "application/octet-stream";
    for (const auto& [name, value] : flow->headers) {
      const std::string lower = Lower(name);
      if (lower == "content-type") {
        content_type = value;
      } else if (!HopByHop(lower)) {
        res.set_header(name, value);
      }
    }
    const bool streamed = Lower(content_type).find("text/event-stream") != std::string::npos;
    if (!streamed) {
      flow->cv.wait(lock, [&] { return flow->finished; });
      const bool ok = flow->upstream_ok;
      const std::string error = flow->error;
      lock.unlock();
      Forget(flow);
      if (!ok) {
        return AnswerJson(res, 502,
                          MakeErrorJson(Format("upstream {} broke off {} {}: {}", options.upstream,
                                               req.method, req.path, error),
                                        "mockllm_upstream_error"));
      }
      Record(req, *flow, false);
      std::string body;
      for (const Chunk& c : flow->chunks) body += c.raw;
      res.set_content(body, content_type);
      return;
    }
    lock.unlock();
    auto shared_req = std::make_shared<const httplib::Request>(req);
    res.set_chunked_content_provider(
        content_type,
        [this, flow, shared_req](std::size_t, httplib::DataSink& sink) {
          std::unique_lock l(flow->mu);
          while (true) {
            flow->cv.wait(l, [&] { return !flow->pending.empty() || flow->finished; });
            std::deque<std::string> batch;
            batch.swap(flow->pending);
            const bool finished = flow->finished;
            l.unlock();
            for (const std::string& piece : batch) {
              if (!sink.write(piece.data(), piece.size())) {
                l.lock();
                flow->client_gone = true;
                if (flow->client) flow->client->stop();
                return false;
              }
            }
            l.lock();
            if (finished && flow->pending.empty()) break;
          }
          const bool ok = flow->upstream_ok;
          l.unlock();
          // Written before the client sees the end (the last chunk, or the
          // cut), so a client that stops the recorder once its answer is over
          // finds its exchange in the file.
          RecordOnce(*shared_req, *flow);
          if (!ok) return false;  // the upstream broke off: so does the answer
          sink.done();
          return true;
        },
        [this, flow, shared_req](bool) {
          Forget(flow);
          RecordOnce(*shared_req, *flow);  // the provider did not run to the end
        });
  }

  void Stop() {
    {
      std::lock_guard lock(flows_mu);
      stopping = true;
      for (const auto& flow : flows) {
        std::lock_guard fl(flow->mu);
        flow->client_gone = true;
        if (flow->client) flow->client->stop();
        flow->cv.notify_all();
      }
    }
    http.Stop();
  }
};

Recorder::Recorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Recorder::~Recorder() { Stop(); }

std::expected<std::unique_ptr<Recorder>, Error> Recorder::Start(RecorderOptions options) {
  auto impl = std::make_unique<Impl>();
  auto upstream = ParseUpstream(options.upstream);
  if (!upstream) return std::unexpected(upstream.error());
  impl->upstream = *upstream;
  std::vector<std::vector<std::string>> redact_json;
  for (const std::string& p : options.redact_json) {
    auto tokens = PointerPatternTokens(p, "--redact-json");
    if (!tokens) return std::unexpected(tokens.error());
    redact_json.push_back(std::move(*tokens));
  }
  std::set<std::string> redact_headers;
  for (const std::string& h : options.redact_headers) redact_headers.insert(Lower(h));
  impl->redactor = Redactor(std::move(redact_json), std::move(redact_headers));
  if (options.trace_id.empty()) {
    std::string name = options.out.filename().string();
    for (std::string_view suffix : {".trace.jsonl", ".jsonl"}) {
      if (name.ends_with(suffix) && name.size() > suffix.size()) {
        name.resize(name.size() - suffix.size());
        break;
      }
    }
    options.trace_id = name;
  }
  const bool exists = std::filesystem::exists(options.out);
  if (exists && !options.append) {
    return std::unexpected(
        Error{Format("{}: the file exists (use --append to add to it)", options.out.string())});
  }
  if (exists) {
    auto trace = LoadTraceFile(options.out);
    if (!trace) return std::unexpected(trace.error());
    impl->next_seq = static_cast<std::int64_t>(trace->exchanges.size()) + 1;
    if (!trace->exchanges.empty() && trace->exchanges.back().seq) {
      impl->next_seq = *trace->exchanges.back().seq + 1;
    }
  }
  // A file that does not end its last line (written by hand) would have the
  // first exchange glued onto that line: end it first.
  bool ends_line = true;
  if (exists) {
    std::ifstream last(options.out, std::ios::binary | std::ios::ate);
    if (last && last.tellg() > 0) {
      last.seekg(-1, std::ios::end);
      ends_line = last.get() == '\n';
    }
  }
  impl->out.open(options.out, std::ios::binary | std::ios::app);
  if (!impl->out)
    return std::unexpected(Error{Format("{}: cannot open for writing", options.out.string())});
  if (!ends_line) impl->out << '\n';
  if (!exists) {
    OJson header = {{"format", kTraceFormat},
                    {"id", options.trace_id},
                    {"origin", "recorded"},
                    {"recorded_at", llmconform::UtcTimestamp(std::time(nullptr))},
                    {"upstream", RedactText(options.upstream)}};
    for (auto it = options.header_fields.begin(); it != options.header_fields.end(); ++it)
      header[it.key()] = *it;
    impl->out << WriteTraceHeader(header) << '\n';
    impl->out.flush();
  }
  impl->options = std::move(options);
  Impl* raw = impl.get();
  auto bound = raw->http.Start(
      ListenOptions{.host = raw->options.host,
                    .port = raw->options.port,
                    .handler_may_block = true,  // waits on the upstream
                    .threads = raw->options.threads,
                    .keep_alive_seconds = 1,
                    .max_body_bytes = raw->options.max_body_bytes},
      [raw](const httplib::Request& req, httplib::Response& res) { raw->Handle(req, res); });
  if (!bound) return std::unexpected(bound.error());
  raw->port = *bound;
  return std::unique_ptr<Recorder>(new Recorder(std::move(impl)));
}

int Recorder::port() const { return impl_->port; }

std::string Recorder::base_url() const {
  return Format("http://{}:{}", impl_->options.host, impl_->port);
}

std::size_t Recorder::exchanges_written() const { return impl_->written; }

void Recorder::Stop() { impl_->Stop(); }

}  // namespace llmconform::mockllm
