// HttpClient: the one way the harness speaks HTTP as a client. The chat
// transport of the reference clients (http_transport.h), the GymBro service's
// upstream call and its message POST (gymbro_service.h), and sse-check's
// event-stream reader (sse_check.h) all send through it, so each can be
// tested against FakeHttpClient (fake_http_client.h) without sockets, and
// every timeout means the same thing everywhere.
//
// Timeouts are split one way, for every call:
//   connect  until the TCP (and TLS) connection is up;
//   read     the longest silence once connected: waiting to write the
//            request, for the status line, or for the next body bytes;
//   total    a deadline for the whole exchange, from the call to the last
//            body byte — however steadily a server trickles bytes in, the
//            call returns by then.
// A caller with one "timeout" gives it to all three (HttpTimeouts::All).
#pragma once

#include <chrono>
#include <cstddef>
#include <expected>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "protocols/wire/transport.h"

namespace llmconform::harness {

// The most a response's head (status line and header lines) may take: an
// endpoint that streams header lines without end is a kBroken failure
// ("the response head … is longer than 65536 bytes") once past it, never a
// buffer that grows with it.
inline constexpr std::size_t kMaxResponseHeadBytes = 64 * 1024;

struct HttpTimeouts {
  std::chrono::milliseconds connect{10000};
  std::chrono::milliseconds read{60000};
  std::chrono::milliseconds total{120000};

  static HttpTimeouts All(std::chrono::milliseconds t) { return {t, t, t}; }
  friend bool operator==(const HttpTimeouts&, const HttpTimeouts&) = default;
};

struct HttpRequest {
  std::string method = "GET";  // "GET", "POST", …
  std::string url;             // absolute: "http(s)://host[:port][/path][?query]"
  std::vector<std::pair<std::string, std::string>> headers;  // sent as given
  std::string body;                                          // sent when not empty
  friend bool operator==(const HttpRequest&, const HttpRequest&) = default;
};

// What a call may stream to its caller. Each handler may return false to
// cancel the exchange (the call then fails with kCancelled).
struct HttpHandlers {
  // Once, when the status line and headers have arrived (`head.body` empty).
  std::function<bool(const wire::HttpResponse& head)> on_head;
  // Body bytes as they arrive. When set, the returned response's body is
  // left empty: the caller keeps what it needs (an endless stream is never
  // held in memory twice).
  std::function<bool(std::string_view bytes)> on_body;
};

enum class HttpFailure {
  kBadUrl,       // the URL is not an absolute http(s) URL
  kUnreachable,  // no connection: refused, no route, no such host, TLS refused
  kTimeout,      // one of the three timeouts passed
  kCancelled,    // a handler returned false
  kBroken,       // the connection failed after it was made (reset, cut, garbled)
};

struct HttpError {
  HttpFailure failure = HttpFailure::kBroken;
  // What happened, without the request: "timed out after 300 ms" (naming the
  // limit that passed), "not an http(s) URL", "cancelled by the client", or
  // what failed and why ("Read: end of stream", "Connection refused").
  std::string what;
  // "POST http://127.0.0.1:1/v1/chat/completions: " + what.
  std::string message;
};

// The error for `request`: fills `message` from the method, URL and `what`.
HttpError MakeHttpError(const HttpRequest& request, HttpFailure failure, std::string what);

class HttpClient {
 public:
  virtual ~HttpClient() = default;

  // Sends `request` and waits for the whole response. An HTTP error status is
  // a response, not an error. Response header names are lower-cased (the
  // last of repeated headers wins). Thread-safe: each call uses its own
  // connection, closed when the call returns.
  virtual std::expected<wire::HttpResponse, HttpError> Send(const HttpRequest& request,
                                                            const HttpTimeouts& timeouts,
                                                            const HttpHandlers& handlers = {}) = 0;
};

// The real client: HTTP/1.1 over Boost.Beast, plain and TLS (the system's
// CAs; the peer's certificate and name verified), no keep-alive. Stateless,
// so the process shares one instance.
std::shared_ptr<HttpClient> RealHttpClient();

}  // namespace llmconform::harness
