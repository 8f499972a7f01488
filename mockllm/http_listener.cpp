#include "mockllm/http_listener.h"

#include <sys/socket.h>

#include <algorithm>
#include <chrono>
#include <condition_variable>
#include <deque>
#include <mutex>
#include <vector>

#include "base/format.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;

// Set while the handler answers a request on this thread, so the error
// handler leaves its (possibly empty, recorded) error bodies alone.
thread_local bool t_handled = false;

// httplib serves a connection on one thread from accept to close. A fixed
// pool of N threads leaves connection N+1 waiting, unanswered, until a
// keep-alive connection ends. This pool starts `min` threads and adds one
// whenever a connection arrives and no thread is idle, up to `max`; past
// `max` connections wait in line. Threads stay until shutdown.
class ElasticPool final : public httplib::TaskQueue {
 public:
  ElasticPool(std::size_t min, std::size_t max) : max_(std::max(min, max)) {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < min; ++i) Spawn();
  }
  ~ElasticPool() override { shutdown(); }

  void enqueue(std::function<void()> fn) override {
    std::lock_guard lock(mu_);
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_) Spawn();
    cv_.notify_one();
  }

  void shutdown() override {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  // Needs mu_.
  void Spawn() {
    threads_.emplace_back([this] {
      for (;;) {
        std::function<void()> fn;
        {
          std::unique_lock lock(mu_);
          ++idle_;
          cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
          --idle_;
          if (jobs_.empty()) return;  // stopping, nothing left
          fn = std::move(jobs_.front());
          jobs_.pop_front();
        }
        fn();
      }
    });
  }

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

}  // namespace

std::optional<std::string> CheckFraming(httplib::Headers& headers) {
  const auto lengths = headers.equal_range("Content-Length");
  const bool chunked = headers.find("Transfer-Encoding") != headers.end();
  if (lengths.first == lengths.second) {
    // RFC 9112 §6.3: no Content-Length and no Transfer-Encoding is an empty
    // body. httplib refuses such a POST; say so for it.
    if (!chunked) headers.emplace("Content-Length", "0");
    return std::nullopt;
  }
  std::string first;
  for (auto it = lengths.first; it != lengths.second; ++it) {
    const std::string& v = it->second;
    if (v.empty() || v.size() > 19 ||
        !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Format("Content-Length \"{}\" is not a decimal number of bytes", v.substr(0, 64));
    }
    if (!first.empty() && v != first) return std::string("conflicting Content-Length headers");
    first = v;
  }
  if (chunked) return std::string("both Content-Length and Transfer-Encoding");
  return std::nullopt;
}

void AnswerJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

std::vector<std::pair<std::string, std::string>> RequestHeaders(const httplib::Headers& headers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : headers) {
    if (name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
        name == "LOCAL_PORT")
      continue;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.emplace_back(std::move(lower), value);
  }
  return out;
}

std::expected<int, llmconform::Error> HttpListener::Start(const ListenOptions& options,
                                                          Handler handler, RefusedHook on_refused) {
  using HandlerResponse = httplib::Server::HandlerResponse;
  http_.new_task_queue = [min = options.threads, max = options.max_connections] {
    return new ElasticPool(static_cast<std::size_t>(min), static_cast<std::size_t>(max));
  };
  // A request's headers and body must keep arriving: a read that waits
  // longer than this ends the connection (slowloris).
  http_.set_read_timeout(std::chrono::milliseconds(options.read_timeout_ms));
  http_.set_tcp_nodelay(true);
  http_.set_keep_alive_max_count(1000000);
  http_.set_keep_alive_timeout(options.keep_alive_seconds);
  http_.set_payload_max_length(options.max_body_bytes);
  http_.set_socket_options([this](socket_t sock) {
    int yes = 1;
    setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof yes);
    if (capture_fd_) listen_fd_ = sock;
  });
  http_.set_pre_routing_handler([on_refused](const httplib::Request& req, httplib::Response& res) {
    t_handled = false;
    // The request object is not const; the handler type only says so.
    auto& headers = const_cast<httplib::Headers&>(req.headers);
    headers.erase("Accept-Encoding");
    headers.erase("Range");
    // Runs before the body is read, so the framing can be judged here.
    if (auto bad = CheckFraming(headers)) {
      t_handled = true;
      if (on_refused) on_refused(req, 400, *bad);
      AnswerJson(
          res, 400,
          llmconform::wire::MakeErrorJson(*bad, "invalid_request_error", nullptr, "bad_request"));
      res.set_header("Connection", "close");
      return HandlerResponse::Handled;
    }
    return HandlerResponse::Unhandled;
  });
  http_.set_error_handler(httplib::Server::HandlerWithResponse(
      [max = options.max_body_bytes, on_refused](const httplib::Request& req,
                                                 httplib::Response& res) {
        if (t_handled) return HandlerResponse::Unhandled;
        std::string message;
        nlohmann::json code = nullptr;
        if (res.status == 413) {
          message = Format("the request body is larger than the limit of {} bytes", max);
          code = "request_too_large";
        } else if (res.status == 400) {
          message = "malformed HTTP request";
          code = "bad_request";
        } else {
          message = Format("HTTP {} ({} {})", res.status, req.method, req.path);
        }
        if (on_refused && !req.method.empty()) on_refused(req, res.status, message);
        AnswerJson(
            res, res.status,
            llmconform::wire::MakeErrorJson(message, "invalid_request_error", nullptr, code));
        return HandlerResponse::Handled;
      }));
  http_.set_exception_handler(
      [](const httplib::Request&, httplib::Response& res, std::exception_ptr ep) {
        std::string what = "unknown error";
        try {
          if (ep) std::rethrow_exception(ep);
        } catch (const std::exception& e) {
          what = e.what();
        } catch (...) {
        }
        AnswerJson(res, 500,
                   llmconform::wire::MakeErrorJson(Format("mockllm internal error: {}", what),
                                                   "server_error"));
      });
  http_.set_logger([](const httplib::Request&, const httplib::Response&) { t_handled = false; });
  const auto route = [handler = std::move(handler)](const httplib::Request& req,
                                                    httplib::Response& res) {
    t_handled = true;
    handler(req, res);
  };
  http_.Get("/.*", route);
  http_.Post("/.*", route);
  http_.Put("/.*", route);
  http_.Patch("/.*", route);
  http_.Delete("/.*", route);
  http_.Options("/.*", route);

  capture_fd_ = true;
  int port = -1;
  if (options.port == 0) {
    port = http_.bind_to_any_port(options.host);
  } else if (http_.bind_to_port(options.host, options.port)) {
    port = options.port;
  }
  capture_fd_ = false;
  if (port <= 0) {
    return std::unexpected(
        llmconform::Error{Format("cannot listen on {}:{}", options.host, options.port)});
  }
  // httplib listens with a backlog of 5; a load test opens more connections at once.
  if (listen_fd_ >= 0) ::listen(listen_fd_, SOMAXCONN);
  thread_ = std::thread([this] {
    http_.listen_after_bind();
    ended_ = true;
  });
  while (!http_.is_running() && !ended_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  return port;
}

void HttpListener::Stop() {
  http_.stop();
  if (thread_.joinable()) thread_.join();
}

}  // namespace llmconform::mockllm
