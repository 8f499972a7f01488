#include "mockllm/recorder.h"

#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <set>
#include <stop_token>
#include <thread>

#include "base/format.h"
#include "mockllm/http_listener.h"
#include "mockllm/redaction.h"
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

// One proxied exchange, shared by the handler, the upstream thread and the
// content provider streaming the answer back.
struct Flow {
  std::mutex mu;
  std::condition_variable cv;
  bool headers_ready = false;
  bool finished = false;     // the upstream request is over
  bool upstream_ok = false;  // …and ended cleanly
  bool client_gone = false;
  bool recorded = false;            // the exchange is written (RecordOnce)
  UpstreamAnswer answer;            // the head and every read, with times
  std::string error;                // why the upstream request failed
  std::deque<std::string> pending;  // read from upstream, not yet written to the client
  std::stop_source stop;            // cancels the upstream request
  std::thread worker;
};

}  // namespace

struct Recorder::Impl {
  RecorderOptions options;
  std::unique_ptr<Recording> recording;
  HttpListener http;
  int port = 0;

  std::mutex flows_mu;
  std::set<std::shared_ptr<Flow>> flows;
  bool stopping = false;

  void Record(const ForwardRequest& req, Flow& flow, bool streamed) {
    recording->Record(req, flow.answer, streamed, flow.upstream_ok);
  }

  // Records a streamed flow once, unless its client left before the end.
  void RecordOnce(const ForwardRequest& req, Flow& flow) {
    {
      std::lock_guard lock(flow.mu);
      if (flow.recorded || flow.client_gone) return;
      flow.recorded = true;
    }
    Record(req, flow, true);
  }

  void RunUpstream(const std::shared_ptr<Flow>& flow, const net::HttpRequest& up) {
    const Clock::time_point t0 = Clock::now();
    const std::size_t max_chunks = recording->options().max_chunks;
    net::HttpHandlers handlers{
        .on_head =
            [&](const net::HttpResponse& head) {
              std::lock_guard lock(flow->mu);
              if (!flow->answer.TakeHead(head)) return false;
              flow->headers_ready = true;
              flow->cv.notify_all();
              return !flow->client_gone;
            },
        .on_body =
            [&](std::string_view bytes) {
              const auto t_ms =
                  std::chrono::duration_cast<std::chrono::milliseconds>(Clock::now() - t0).count();
              std::lock_guard lock(flow->mu);
              if (flow->client_gone) return false;
              if (!flow->answer.TakeRead(bytes, t_ms, max_chunks)) return false;
              // Small reads the client has not taken yet go out together.
              if (!flow->pending.empty() && flow->pending.back().size() < kJoinPendingBelow) {
                flow->pending.back().append(bytes);
              } else {
                flow->pending.emplace_back(bytes);
              }
              flow->cv.notify_all();
              return true;
            },
        .stop = flow->stop.get_token()};
    auto res = recording->Send(up, handlers);
    std::lock_guard lock(flow->mu);
    flow->finished = true;
    flow->upstream_ok = res.has_value();
    if (!res) flow->error = flow->answer.error.empty() ? res.error().what : flow->answer.error;
    flow->cv.notify_all();
  }

  void Forget(const std::shared_ptr<Flow>& flow) {
    if (flow->worker.joinable()) flow->worker.join();
    std::lock_guard lock(flows_mu);
    flows.erase(flow);
  }

  void Handle(const HttpRequest& req, HttpResponse& res) {
    auto flow = std::make_shared<Flow>();
    {
      std::lock_guard lock(flows_mu);
      if (stopping)
        return AnswerJson(res, 503, MakeErrorJson("mockllm record is stopping", "server_error"));
      flows.insert(flow);
    }
    auto fwd = std::make_shared<const ForwardRequest>(
        ForwardRequest{.method = req.method,
                       .target = req.target,
                       .path = req.path,
                       .headers = RequestHeaders(req.headers),
                       .body = req.body});
    flow->worker =
        std::thread([this, flow, up = recording->UpstreamRequest(*fwd)] { RunUpstream(flow, up); });

    std::unique_lock lock(flow->mu);
    flow->cv.wait(lock, [&] { return flow->headers_ready || flow->finished; });
    if (!flow->headers_ready) {
      const std::string error = flow->error;
      lock.unlock();
      Forget(flow);
      return AnswerJson(
          res, 502,
          MakeErrorJson(Format("upstream {} did not answer {} {}: {}",
                               recording->options().upstream, req.method, req.path, error),
                        "mockllm_upstream_error"));
    }
    res.status = flow->answer.status;
    for (const auto& [name, value] : flow->answer.headers) {
      const std::string lower = Lower(name);
      if (lower != "content-type" && !HopByHop(lower)) res.SetHeader(name, value);
    }
    const std::string content_type = flow->answer.ContentType();
    const bool streamed = flow->answer.Streamed();
    if (!streamed) {
      flow->cv.wait(lock, [&] { return flow->finished; });
      const bool ok = flow->upstream_ok;
      const std::string error = flow->error;
      lock.unlock();
      Forget(flow);
      if (!ok) {
        return AnswerJson(
            res, 502,
            MakeErrorJson(Format("upstream {} broke off {} {}: {}", recording->options().upstream,
                                 req.method, req.path, error),
                          "mockllm_upstream_error"));
      }
      Record(*fwd, *flow, false);
      res.SetBody(flow->answer.Body(), content_type);
      return;
    }
    lock.unlock();
    res.ProvideBody(std::nullopt, content_type, [this, flow, fwd](std::size_t, HttpSink& sink) {
      std::unique_lock l(flow->mu);
      while (true) {
        flow->cv.wait(l, [&] { return !flow->pending.empty() || flow->finished; });
        std::deque<std::string> batch;
        batch.swap(flow->pending);
        const bool finished = flow->finished;
        l.unlock();
        for (const std::string& piece : batch) {
          if (!sink.write(piece)) {
            l.lock();
            flow->client_gone = true;
            flow->stop.request_stop();
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
      RecordOnce(*fwd, *flow);
      if (!ok) return false;  // the upstream broke off: so does the answer
      sink.done();
      return true;
    });
    res.on_written = [this, flow, fwd](bool) {
      Forget(flow);
      RecordOnce(*fwd, *flow);  // the provider did not run to the end
    };
  }

  void Stop() {
    {
      std::lock_guard lock(flows_mu);
      stopping = true;
      for (const auto& flow : flows) {
        std::lock_guard fl(flow->mu);
        flow->client_gone = true;
        flow->stop.request_stop();
        flow->cv.notify_all();
      }
    }
    http.Stop();
  }
};

Recorder::Recorder(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

Recorder::~Recorder() { Stop(); }

std::expected<std::unique_ptr<Recorder>, Error> Recorder::Start(
    RecorderOptions options, std::shared_ptr<net::HttpClient> client) {
  auto impl = std::make_unique<Impl>();
  auto recording = Recording::Open(options.recording, std::move(client));
  if (!recording) return std::unexpected(recording.error());
  impl->recording = std::move(*recording);
  impl->options = std::move(options);
  Impl* raw = impl.get();
  auto bound = raw->http.Start(
      [&] {
        ListenOptions listen = raw->options.listen;
        listen.handler_may_block = true;  // waits on the upstream
        return listen;
      }(),
      [raw](const HttpRequest& req, HttpResponse& res) { raw->Handle(req, res); });
  if (!bound) return std::unexpected(bound.error());
  raw->port = *bound;
  return std::unique_ptr<Recorder>(new Recorder(std::move(impl)));
}

int Recorder::port() const { return impl_->port; }

std::string Recorder::base_url() const {
  return Format("http://{}:{}", impl_->options.listen.host, impl_->port);
}

std::size_t Recorder::exchanges_written() const { return impl_->recording->exchanges_written(); }

void Recorder::Stop() { impl_->Stop(); }

}  // namespace llmconform::mockllm
