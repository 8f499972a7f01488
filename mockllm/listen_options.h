// Where and how an HttpListener (mockllm/http_listener.h) listens, and its
// bounds; the replay server's and the recorder's options hold one each.
// Plain data, no dependencies, so holders need not include the listener.
#pragma once

#include <cstddef>
#include <string>

namespace llmconform::mockllm {

struct ListenOptions {
  std::string host = "127.0.0.1";
  int port = 0;                    // 0: an ephemeral port
  int io_threads = 0;              // 0: one per core, at most 4
  bool handler_may_block = false;  // run every handler on a worker, not on an I/O thread
  int threads = 32;                // workers started at once (more are added while all are busy)
  int max_connections = 4096;      // open connections; one more is answered 503
  int read_timeout_ms = 2000;  // a request's head arrives within this; its body has no longer gap
  // An idle keep-alive connection is closed after this; every keep-alive
  // answer says so (`Keep-Alive: timeout=N`), so a client that reads the hint
  // (undici, Node's fetch) stops reusing the connection before the close and
  // a retry never races it.
  int keep_alive_seconds = 5;
  int write_timeout_ms = 10000;  // a write that cannot progress this long ends the connection
  std::size_t max_body_bytes = 16 * 1024 * 1024;
  // Request bodies all the connections may hold at once while they arrive
  // (one announced by Content-Length counts whole from its head); a request
  // whose body does not fit is answered 503 (Retry-After: 1) and closed.
  std::size_t max_buffered_body_bytes = std::size_t{256} << 20;
};

}  // namespace llmconform::mockllm
