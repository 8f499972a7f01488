// FakeHttpClient: an in-memory HttpClient for tests. It answers each request
// with the next scripted Reply — a status and headers, a body delivered in
// chunks, then the end, a failure or an endless repetition — and records
// every request with its timeouts. No sockets, no clocks: a timeout is a
// scripted failure, and a test that must act between chunks (say, wait until
// the code under test has published something) does so in `before_chunk`.
//
// It keeps HttpClient's contract: handlers see the head, then each chunk;
// one returning false (or a stop requested) ends the call with kCancelled; with on_body set the
// returned body is empty; a URL that is not http(s) is kBadUrl. Thread-safe.
#pragma once

#include <cstddef>
#include <deque>
#include <functional>
#include <map>
#include <mutex>
#include <optional>
#include <string>
#include <vector>

#include "net/http_client.h"

namespace llmconform::net {

class FakeHttpClient final : public HttpClient {
 public:
  struct Reply {
    // Fails the call before any response (kUnreachable, kTimeout, …); the
    // fields below are then unused.
    std::optional<HttpFailure> fail_at_once;
    int status = 200;
    std::map<std::string, std::string> headers;  // names lower-cased
    std::vector<std::string> chunks;             // the body, one on_body call each
    // Repeats `chunks` until a handler cancels (they must not be empty).
    bool endless = false;
    // After the chunks, fails (kBroken: the stream was cut; kTimeout) instead
    // of ending.
    std::optional<HttpFailure> fail_after_chunks;
    // Called before chunk i (counting repetitions) is delivered.
    std::function<void(std::size_t i)> before_chunk;
  };

  // A response with a content type and a body in `chunks`.
  static Reply Respond(int status, std::string content_type, std::vector<std::string> chunks);
  // A call that fails before any response.
  static Reply Fail(HttpFailure failure);

  // Queues the answer to the next request not answered yet. A request with
  // nothing queued fails kUnreachable ("no reply scripted").
  void Push(Reply reply);

  // Every request sent so far (also those that failed), in order.
  std::vector<HttpRequest> requests() const;
  std::vector<HttpTimeouts> timeouts() const;

  std::expected<HttpResponse, HttpError> Send(const HttpRequest& request,
                                              const HttpTimeouts& timeouts,
                                              const HttpHandlers& handlers = {}) override;

 private:
  mutable std::mutex mu_;
  std::deque<Reply> replies_;
  std::vector<HttpRequest> requests_;
  std::vector<HttpTimeouts> timeouts_;
};

}  // namespace llmconform::net
