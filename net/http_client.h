// HttpClient: the one way llmconform and mockllm speak HTTP as a client. In
// the harness, the chat transport of the reference clients
// (harness/http_transport.h), the GymBro service's upstream call and its
// message POST (harness/gymbro_service.h) and sse-check's event-stream reader
// (harness/sse_check.h); in mockllm, `record` and `serve --proxy` reaching
// the real upstream (mockllm/recording.h). Each can be tested against
// FakeHttpClient (fake_http_client.h) without sockets, every timeout means
// the same thing everywhere, and no response head grows without bound.
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
#include <stop_token>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "net/http_response.h"

namespace llmconform::net {

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
  // `head.fields` holds every header line as received.
  std::function<bool(const HttpResponse& head)> on_head;
  // Body bytes as they arrive. When set, the returned response's body is
  // left empty: the caller keeps what it needs (an endless stream is never
  // held in memory twice).
  std::function<bool(std::string_view bytes)> on_body;
  // When a stop is requested (from any thread), the call ends at once with
  // kCancelled, also while it waits on a silent server.
  std::stop_token stop;
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
  // last of repeated headers wins); `fields` keeps them all, as received. Thread-safe: each call
  // uses its own connection, closed when the call returns.
  virtual std::expected<HttpResponse, HttpError> Send(const HttpRequest& request,
                                                      const HttpTimeouts& timeouts,
                                                      const HttpHandlers& handlers = {}) = 0;
};

// The real client: HTTP/1.1 over Boost.Beast, plain and TLS (the system's
// CAs; the peer's certificate and name verified), no keep-alive. Stateless,
// so the process shares one instance.
std::shared_ptr<HttpClient> RealHttpClient();

// The real client trusting the CA certificates of the PEM file `ca_file`
// for https (in place of the system's; "" gives RealHttpClient()). Error:
// the file cannot be read or holds no certificate, naming the file.
std::expected<std::shared_ptr<HttpClient>, Error> RealHttpClient(const std::string& ca_file);

}  // namespace llmconform::net
