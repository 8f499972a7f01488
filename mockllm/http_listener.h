// The HTTP layer shared by the replay server and the recorder: cpp-httplib
// set up for replay fidelity and robustness, listening on its own threads.
//
// Every route of every method goes to one handler. Responses are never
// compressed and Range requests are ignored (replay writes recorded bytes),
// TCP_NODELAY is on (a recorded piece leaves as its own segment), the accept
// backlog is the system's maximum. Each connection holds a thread (httplib's
// design); threads are added as connections arrive, up to max_connections, so
// connection N+1 is not left waiting behind N idle keep-alive ones. What the HTTP layer refuses
// before the handler runs (a body over the limit: 413, a malformed request: 400) is answered in
// OpenAI's error form and reported to `on_refused`; an exception in the handler becomes a 500 in
// the same form.
#pragma once

#include <httplib.h>

#include <atomic>
#include <expected>
#include <functional>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <thread>

#include "base/error.h"

namespace llmconform::mockllm {

struct ListenOptions {
  std::string host = "127.0.0.1";
  int port = 0;                // 0: an ephemeral port
  int threads = 32;            // serving threads started at once
  int max_connections = 4096;  // more threads are added, up to this, as connections arrive
  int read_timeout_ms = 2000;  // a request whose next bytes take longer is dropped
  int keep_alive_seconds = 1;
  std::size_t max_body_bytes = 16 * 1024 * 1024;
};

class HttpListener {
 public:
  using Handler = std::function<void(const httplib::Request&, httplib::Response&)>;
  using RefusedHook =
      std::function<void(const httplib::Request&, int status, const std::string& message)>;

  HttpListener() = default;
  ~HttpListener() { Stop(); }
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds and starts serving; returns the port. Call once.
  std::expected<int, llmconform::Error> Start(const ListenOptions& options, Handler handler,
                                              RefusedHook on_refused = {});
  // Stops accepting and waits for the serving threads (an idle keep-alive
  // connection may hold one for up to keep_alive_seconds). Idempotent.
  void Stop();

 private:
  httplib::Server http_;
  std::thread thread_;
  std::atomic<bool> ended_ = false;
  int listen_fd_ = -1;
  bool capture_fd_ = false;
};

// Judges a request's body framing before the body is read: a missing
// Content-Length without Transfer-Encoding is added as 0 (RFC 9112 §6.3: an
// empty body); a Content-Length that is not a decimal number, two different
// ones, or one beside Transfer-Encoding is the returned message (answered
// 400, connection closed).
std::optional<std::string> CheckFraming(httplib::Headers& headers);

// Sets `res` to `status` with `body` as compact JSON.
void AnswerJson(httplib::Response& res, int status, const nlohmann::json& body);

// Lower-cased header names with their values, leaving out the ones httplib
// adds itself (REMOTE_ADDR …).
std::vector<std::pair<std::string, std::string>> RequestHeaders(const httplib::Headers& headers);

}  // namespace llmconform::mockllm
