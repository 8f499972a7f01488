// The HTTP/1.1 server shared by the replay server and the recorder: an
// event-driven listener on Boost.Asio with Beast's request parser, handing
// each complete request to a handler as mockllm's own HttpRequest, to be
// answered in an HttpResponse (mockllm/http_message.h), whose one body says
// how it is written. Why not cpp-httplib's server: docs/mockllm-server.md.
//
// Threads: `io_threads` I/O threads accept connections, wait for their bytes,
// parse requests and run the handler; an answer with owned or lent bytes is
// written from there without blocking, and so is a paced body
// (HttpResponse::Paced: a timed replay), each piece when it falls due, so
// thousands of timed answers cost timers and memory, not threads. An answer
// whose body a content provider gives (HttpResponse::Provided: the provider
// may wait) is written by a worker, and so is every answer when
// `handler_may_block` (the recorder waits on its upstream in the handler) or
// whose handler hands the rest of its work to a worker
// (HttpResponse::OnWorker). An idle keep-alive connection holds no thread, only its
// socket, so connection N+1 is never left waiting behind N idle ones.
//
// Bounds: `max_connections` open connections (one more is answered 503 and
// closed); a request's head must arrive complete within `read_timeout_ms` of
// its first byte, and its body must keep arriving (no gap longer than
// `read_timeout_ms`), or it is answered 408 and closed (slowloris); an idle
// keep-alive connection is closed after `keep_alive_seconds`; heads are at
// most 64 KiB (431) and bodies `max_body_bytes` (413), and the bodies of all
// connections together `max_buffered_body_bytes` (503); a write that cannot
// progress for `write_timeout_ms` ends the connection.
//
// Framing (RFC 9112): no Content-Length and no Transfer-Encoding is an empty
// body; a Content-Length that is not a decimal number, two different ones, or
// one beside Transfer-Encoding is answered 400 and the connection closed. A
// complete request followed by the client's half-close is answered (a FIN is
// not the client leaving: a failed write or a reset is), then the connection
// is closed. `Expect: 100-continue` is honoured; pipelined
// requests are answered in order. A chunked body's trailer is read and
// dropped: its fields never join the head's (the handler sees the head's).
//
// Responses are never compressed and Range requests are ignored (replay
// writes recorded bytes). A handler that sets `Transfer-Encoding` itself
// gives its body framed already (mockllm's precomputed chunked replies). A
// chunked provider's every piece becomes one chunk written in one system call
// (size line, bytes and CRLF gathered), so recorded piece boundaries reach
// the wire. TCP_NODELAY is on. What the listener refuses before the handler
// runs (400, 408, 413, 431) is answered in OpenAI's error form (the
// Anthropic or Gemini form when the head names a path of that API:
// mockllm/surface_errors.h InSurfaceShape) and reported to `on_refused`; an
// exception in the handler, or an answer whose status is not a final one
// (200-599), becomes a 500 in the same form.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "mockllm/http_message.h"
#include "mockllm/listen_options.h"

namespace llmconform::mockllm {

class HttpListener {
 public:
  // Runs once per request, on an I/O thread (it must not block: waiting
  // belongs in a paced body, a content provider, or work handed to a worker)
  // or, with `handler_may_block`, on a worker. Called from several threads
  // at once. It is given a response of status 200, no fields and no body;
  // what it leaves there is written after it returns, as its one body says
  // (mockllm/http_message.h HttpResponse::Body). The response is let go
  // (its on_written told whether the answer left whole) once the answer is
  // written or the connection ended first.
  using Handler = std::function<void(const HttpRequest&, HttpResponse&)>;
  // Runs on the I/O thread or a worker; `req` holds what was read of the
  // refused request (method and path may be empty, the body is).
  using RefusedHook =
      std::function<void(const HttpRequest&, int status, const std::string& message)>;

  HttpListener();
  ~HttpListener();  // stops
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  // Binds and starts serving; returns the port. Call once.
  std::expected<int, llmconform::Error> Start(const ListenOptions& options, Handler handler,
                                              RefusedHook on_refused = {});
  // Stops accepting, shuts every open connection down (a worker blocked in a
  // write or a wait for bytes returns at once) and waits for the workers,
  // i.e. for handlers to return: a handler that waits must be told to stop
  // first (Server::Stop does). Idempotent.
  void Stop();

  // Connections open now; connections refused (503) for max_connections.
  std::size_t OpenConnections() const;
  std::uint64_t RefusedConnections() const;

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

// Open files (every connection is one): `serve` raises its soft
// RLIMIT_NOFILE to the hard limit at start (Debian's soft default of 1024 is
// below the default --max-connections 4096: past it a newcomer waited for the
// read timeout instead of the promised 503) and clamps --max-connections to
// what the limit leaves, saying so on stderr.
struct OpenFileLimit {
  std::uint64_t before = 0;  // the soft limit found
  std::uint64_t now = 0;     // the soft limit after raising it (the hard one, when allowed)
};
// Raises the soft limit to the hard one (as far as the system allows).
OpenFileLimit RaiseOpenFileLimit();
// Descriptors the process has open now (0 when /proc/self/fd cannot be read).
std::uint64_t OpenDescriptors();
// Descriptors kept free beside the connections: trace and journal files,
// the proxy's and recorder's upstream connections, the listener's own.
inline constexpr std::uint64_t kReservedDescriptors = 64;
// The most of `requested` connections that fit in `limit` open files with
// `in_use` open already and kReservedDescriptors kept free; at least 1.
int ConnectionsWithin(int requested, std::uint64_t limit, std::uint64_t in_use);

// Judges a request's body framing from its head: a missing Content-Length
// without Transfer-Encoding is added as 0 (RFC 9112 §6.3: an empty body); a
// Content-Length that is not a decimal number, two different ones, one
// beside Transfer-Encoding, or a Transfer-Encoding whose last coding is not
// chunked is the returned message (answered 400, connection closed).
std::optional<std::string> CheckFraming(HttpFields& headers);

}  // namespace llmconform::mockllm
