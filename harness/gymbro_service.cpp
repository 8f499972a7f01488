#include "harness/gymbro_service.h"

#include <httplib.h>

#include <atomic>
#include <condition_variable>
#include <map>
#include <mutex>
#include <nlohmann/json.hpp>
#include <optional>
#include <thread>
#include <vector>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/inline_think.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness {
namespace {

using Clock = std::chrono::steady_clock;
using gymbro::StreamEvent;

std::string Dump(const Json& j) { return DumpJson(j); }

// One message: its event stream as published so far.
struct Broker {
  Broker(std::string message_id, std::string request_id)
      : publisher(std::move(message_id), std::move(request_id)) {}

  // Appends `e` unless the stream has ended; call with `mu` held.
  void Publish(StreamEvent e) {
    if (finished) return;
    finished = e.event == "completed" || e.event == "error";
    events.push_back(std::move(e));
    cv.notify_all();
  }

  std::mutex mu;
  std::condition_variable cv;
  gymbro::EventPublisher publisher;
  std::vector<StreamEvent> events;
  bool finished = false;
  Clock::time_point last_upstream_activity = Clock::now();
  gymbro::RouteInfo route;
};

// What the upstream's text/event-stream carried in one event: a piece of
// reply text, and the ids the terminal event reports.
struct UpstreamPiece {
  std::string content;
  std::optional<std::string> id;
  std::optional<std::string> model;
};

UpstreamPiece ReadPiece(const wire::SseEvent& e) {
  UpstreamPiece piece;
  if (e.data == "[DONE]") return piece;
  const Json chunk = ReadJsonOrDiscarded(e.data);
  if (!chunk.is_object()) return piece;
  if (auto id = chunk.find("id"); id != chunk.end() && id->is_string())
    piece.id = id->get<std::string>();
  if (auto m = chunk.find("model"); m != chunk.end() && m->is_string())
    piece.model = m->get<std::string>();
  auto choices = chunk.find("choices");
  if (choices == chunk.end() || !choices->is_array() || choices->empty()) return piece;
  const Json& first = (*choices)[0];
  if (!first.is_object()) return piece;
  auto delta = first.find("delta");
  if (delta == first.end() || !delta->is_object()) return piece;
  auto content = delta->find("content");
  if (content != delta->end()) piece.content = wire::ContentText(*content);  // text blocks only
  return piece;
}

// The terminal event's code and message, or nullopt for `completed`.
struct Failure {
  std::string code;
  std::string message;
};

std::optional<Failure> Judge(const std::expected<wire::HttpResponse, net::HttpError>& result,
                             bool any_bytes, const wire::AccumulatedStream& stream, bool stopping) {
  if (stopping)
    return Failure{"service_stopping", "the service stopped before the upstream finished"};
  if (!result) {
    const std::string& m = result.error().message;
    if (result.error().failure == net::HttpFailure::kTimeout) return Failure{"upstream_timeout", m};
    if (any_bytes)
      return Failure{"upstream_incomplete", Format("the upstream stream broke: {}", m)};
    return Failure{"provider_unavailable", m};
  }
  if (result->status != 200) {
    const Json body = ReadJsonOrDiscarded(result->body);
    const auto error = wire::ErrorBodyFromJson(body);
    return Failure{"provider_error", Format("the upstream answered HTTP {}: {}", result->status,
                                            error ? error->message : result->body.substr(0, 200))};
  }
  if (stream.error) return Failure{"provider_error", stream.error->message};
  if (!stream.finish_reason && !stream.saw_done) {
    return Failure{"upstream_incomplete",
                   "the upstream stream ended without a finish_reason or data: [DONE]"};
  }
  return std::nullopt;
}

}  // namespace

struct GymbroService::Impl {
  explicit Impl(GymbroServiceOptions o) : options(std::move(o)) {}

  GymbroServiceOptions options;
  httplib::Server http;
  std::thread listener;
  int port = 0;

  std::mutex mu;  // guards the fields below
  std::map<std::string, std::shared_ptr<Broker>> messages;
  std::vector<std::thread> threads;  // workers and heartbeat timers
  std::uint64_t next_message = 1;
  std::uint64_t next_request = 1;
  bool stopped = false;
  std::atomic<bool> stopping{false};

  void HandlePost(const httplib::Request& req, httplib::Response& res) {
    const Json body = ReadJsonOrDiscarded(req.body);
    std::string problem;
    if (!body.is_object()) {
      problem = "the body must be a JSON object {\"text\", \"system\"?, \"model\"?}";
    } else if (!body.contains("text") || !body["text"].is_string()) {
      problem = "/text: expected string";
    } else if (body.contains("system") && !body["system"].is_string()) {
      problem = "/system: expected string";
    } else if (body.contains("model") && !body["model"].is_string()) {
      problem = "/model: expected string";
    }
    if (!problem.empty()) {
      res.status = 400;
      res.set_content(Dump(wire::MakeErrorJson(problem, "invalid_request_error")),
                      "application/json");
      return;
    }
    const std::string text = body["text"].get<std::string>();
    const std::string system = StringOf(body, "system");
    const std::string model = body.value("model", options.model);
    std::string request_id = req.get_header_value("X-Request-Id");

    std::shared_ptr<Broker> broker;
    {
      std::lock_guard lock(mu);
      if (stopped || stopping) {
        res.status = 503;
        res.set_content(Dump(wire::MakeErrorJson("the service is stopping", "server_error")),
                        "application/json");
        return;
      }
      if (request_id.empty()) request_id = Format("req_{}", next_request++);
      const std::string id = Format("msg_{}", next_message++);
      broker = std::make_shared<Broker>(id, request_id);
      {
        std::lock_guard b(broker->mu);
        broker->route = {options.provider, model, options.endpoint_id, std::nullopt};
        broker->Publish(broker->publisher.Status("queued"));
      }
      messages[id] = broker;
      threads.emplace_back(
          [this, broker, text, system, model] { Work(*broker, text, system, model); });
      threads.emplace_back([this, broker] { Heartbeats(*broker); });
      res.set_content(Dump(Json{{"message_id", id}}), "application/json");
    }
    res.set_header("X-Request-Id", request_id);
  }

  void HandleEvents(const httplib::Request& req, httplib::Response& res) {
    const std::string id = req.matches[1];
    std::shared_ptr<Broker> broker;
    {
      std::lock_guard lock(mu);
      if (auto it = messages.find(id); it != messages.end()) broker = it->second;
    }
    if (!broker) {
      res.status = 404;
      res.set_content(
          Dump(wire::MakeErrorJson(Format("no message \"{}\"", id), "invalid_request_error")),
          "application/json");
      return;
    }
    res.set_header("Cache-Control", "no-cache");
    res.set_header("X-Request-Id", broker->publisher.request_id());
    res.set_chunked_content_provider(
        "text/event-stream",
        [broker, next = std::size_t{0}](std::size_t, httplib::DataSink& sink) mutable {
          std::vector<StreamEvent> batch;
          bool done = false;
          {
            std::unique_lock lock(broker->mu);
            broker->cv.wait_for(lock, std::chrono::milliseconds(200),
                                [&] { return next < broker->events.size() || broker->finished; });
            batch.assign(broker->events.begin() + static_cast<std::ptrdiff_t>(next),
                         broker->events.end());
            next = broker->events.size();
            done = broker->finished;
          }
          for (const auto& e : batch) {
            const std::string frame = wire::WriteSseEvent({e.event, e.data, ""});
            if (!sink.write(frame.data(), frame.size())) return false;
          }
          if (done) {
            sink.done();
          } else if (!sink.is_writable()) {
            return false;  // the subscriber went away
          }
          return true;
        });
  }

  // Calls the upstream and publishes what it sends.
  void Work(Broker& b, const std::string& text, const std::string& system,
            const std::string& model) {
    OJson request{{"model", model}, {"messages", OJson::array()}, {"stream", true}};
    if (!system.empty()) request["messages"].push_back({{"role", "system"}, {"content", system}});
    request["messages"].push_back({{"role", "user"}, {"content", text}});
    {
      std::lock_guard lock(b.mu);
      b.Publish(b.publisher.Status("working"));
      b.Publish(b.publisher.Status("routed", b.route));
    }
    wire::SseParser parser;
    wire::StreamAccumulator accumulator;
    std::optional<wire::InlineThinkFilter> think;
    if (options.inline_reasoning) think.emplace();
    bool any_bytes = false;
    std::vector<wire::SseEvent> events;
    net::HttpClient& client =
        options.upstream_client ? *options.upstream_client : *net::RealHttpClient();
    const net::HttpRequest upstream{
        "POST",
        options.upstream_base_url + "/chat/completions",
        {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}},
        DumpJson(request)};
    int status = 0;
    std::string error_body;  // kept only when the upstream answers an error, up to 1 MiB
    auto result =
        client.Send(upstream, net::HttpTimeouts::All(options.upstream_timeout),
                    {.on_head =
                         [&](const wire::HttpResponse& head) {
                           status = head.status;
                           return true;
                         },
                     .on_body =
                         [&](std::string_view bytes) {
                           any_bytes = true;
                           if (status != 200) {
                             constexpr std::size_t kMaxErrorBody = 1 << 20;
                             error_body.append(bytes.substr(
                                 0, kMaxErrorBody - std::min(kMaxErrorBody, error_body.size())));
                             return !stopping.load();
                           }
                           events.clear();
                           parser.Feed(bytes, events);
                           std::lock_guard lock(b.mu);
                           b.last_upstream_activity = Clock::now();
                           for (const auto& e : events) {
                             accumulator.AddEvent(e);
                             UpstreamPiece piece = ReadPiece(e);
                             if (piece.id && !b.route.upstream_request_id)
                               b.route.upstream_request_id = piece.id;
                             if (piece.model) b.route.resolved_model = *piece.model;
                             const std::string text =
                                 think ? think->Feed(piece.content) : std::move(piece.content);
                             for (auto& delta : b.publisher.Deltas(text))
                               b.Publish(std::move(delta));
                           }
                           return !stopping.load();
                         }});
    if (result) result->body = std::move(error_body);
    parser.Finish();
    accumulator.NoteComments(parser.comment_count());
    const wire::AccumulatedStream stream = accumulator.Finish();
    const auto failure = Judge(result, any_bytes, stream, stopping.load());
    std::lock_guard lock(b.mu);
    if (b.finished) return;
    if (think) {
      for (auto& delta : b.publisher.Deltas(think->Finish())) b.Publish(std::move(delta));
    }
    b.Publish(failure ? b.publisher.Error(failure->code, failure->message, b.route)
                      : b.publisher.Completed(b.route));
  }

  // Publishes a heartbeat after every interval without upstream bytes, until
  // the stream ends.
  void Heartbeats(Broker& b) {
    const auto interval = options.heartbeat_interval;
    std::unique_lock lock(b.mu);
    while (true) {
      const auto due = b.last_upstream_activity + interval;
      if (b.cv.wait_until(lock, due, [&] { return b.finished || stopping.load(); })) return;
      if (Clock::now() < b.last_upstream_activity + interval) continue;  // bytes came meanwhile
      const auto ts = std::chrono::duration_cast<std::chrono::milliseconds>(
          std::chrono::system_clock::now().time_since_epoch());
      b.Publish(b.publisher.Heartbeat(ts.count()));
      b.last_upstream_activity = Clock::now();
    }
  }

  std::expected<void, Error> Listen() {
    http.set_tcp_nodelay(true);
    http.Post("/api/v1/messages", [this](const httplib::Request& req, httplib::Response& res) {
      HandlePost(req, res);
    });
    http.Get(
        R"(/api/v1/messages/([^/]+)/events)",
        [this](const httplib::Request& req, httplib::Response& res) { HandleEvents(req, res); });
    port = options.port == 0 ? http.bind_to_any_port(options.host)
                             : (http.bind_to_port(options.host, options.port) ? options.port : -1);
    if (port <= 0)
      return std::unexpected(Error{Format("cannot listen on {}:{}", options.host, options.port)});
    listener = std::thread([this] { http.listen_after_bind(); });
    while (!http.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
    return {};
  }

  void Stop() {
    std::vector<std::thread> joining;
    {
      std::lock_guard lock(mu);
      if (stopped) return;
      stopped = true;
      stopping = true;
      for (auto& [id, broker] : messages) {
        std::lock_guard b(broker->mu);
        broker->Publish(broker->publisher.Error(
            "service_stopping", "the service stopped before the upstream finished", broker->route));
        broker->cv.notify_all();
      }
      joining.swap(threads);
    }
    for (auto& t : joining) t.join();
    http.stop();
    if (listener.joinable()) listener.join();
  }
};

GymbroService::GymbroService(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}

GymbroService::~GymbroService() { Stop(); }

std::expected<std::unique_ptr<GymbroService>, Error> GymbroService::Start(
    GymbroServiceOptions options) {
  if (options.upstream_base_url.empty())
    return std::unexpected(Error{"upstream_base_url: expected a URL, got \"\""});
  if (options.heartbeat_interval.count() <= 0) {
    return std::unexpected(Error{Format("heartbeat_interval: expected more than 0 ms, got {}",
                                        options.heartbeat_interval.count())});
  }
  auto impl = std::make_unique<Impl>(std::move(options));
  if (auto ok = impl->Listen(); !ok) return std::unexpected(ok.error());
  return std::unique_ptr<GymbroService>(new GymbroService(std::move(impl)));
}

int GymbroService::port() const { return impl_->port; }

std::string GymbroService::base_url() const {
  return Format("http://{}:{}", impl_->options.host, impl_->port);
}

void GymbroService::Stop() { impl_->Stop(); }

std::expected<wire::HttpResponse, Error> PostGymbroMessage(
    const std::string& base_url, const std::string& json_body,
    const std::optional<std::string>& request_id, std::chrono::milliseconds timeout,
    net::HttpClient& client) {
  net::HttpRequest request{
      "POST", base_url + "/api/v1/messages", {{"Content-Type", "application/json"}}, json_body};
  if (request_id) request.headers.emplace_back("X-Request-Id", *request_id);
  auto res = client.Send(request, net::HttpTimeouts::All(timeout));
  if (!res) return std::unexpected(Error::Io(res.error().message));
  return std::move(*res);
}

}  // namespace llmconform::harness
