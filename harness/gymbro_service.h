// The GymBro reference service (seed 002 §6–§7; docs/protocols.md "gymbro SSE"):
// a small HTTP server that takes a user message, streams the reply from an
// upstream OpenAI-compatible endpoint (mockllm in scenarios), and publishes
// the GymBro event stream for it.
//
//   POST /api/v1/messages   {"text", "system"?, "model"?}  → 200 {"message_id"}
//        X-Request-Id (optional) becomes every event's request_id (echoed in
//        the response header too); without it the service makes one up.
//        Bad input → 400 {"error":{…}} (OpenAI's error shape).
//   GET  /api/v1/messages/{message_id}/events → 200 text/event-stream, frames
//        `event: NAME\ndata: COMPACT-JSON\n\n`, from the first event on (a late
//        subscriber gets the whole stream), closed after the terminal event;
//        unknown id → 404.
//
// Per message: `status` queued (when the POST is taken), working (when the
// upstream call is prepared), routed (right before it is sent), then one
// `content_delta` per piece of upstream text (SplitDelta: pieces of at most
// 256 characters, cut near 128 at a line or sentence break), `heartbeat`
// after every `heartbeat_interval` in which the upstream sent nothing, and one
// terminal event:
//   completed  the upstream finished (a finish_reason or `data: [DONE]`);
//   error      provider_error        the upstream answered an HTTP error, or an
//                                    `error` object inside its stream;
//              upstream_incomplete   its stream ended, or broke, before finishing;
//              provider_unavailable  it could not be reached;
//              upstream_timeout      it did not finish within upstream_timeout;
//              service_stopping      the service was stopped first.
// The upstream request is {"model", "messages":[system?, user], "stream":true}.
//
// Threads: one worker and one heartbeat timer per message; one HTTP thread
// per open event stream. Every method may be called from any thread.
#pragma once

#include <chrono>
#include <expected>
#include <memory>
#include <optional>
#include <string>

#include "base/error.h"
#include "net/http_client.h"
#include "protocols/thinkingml/gymbro_publisher.h"
#include "protocols/wire/transport.h"

namespace llmconform::harness {

struct GymbroServiceOptions {
  // The OpenAI-compatible base URL; the service POSTs "<base>/chat/completions".
  std::string upstream_base_url;
  std::string model = "gpt-4o-mini";  // unless the message names one
  std::string provider = "openai";    // for the routed, completed and error events
  std::int64_t endpoint_id = 1;
  std::chrono::milliseconds heartbeat_interval{15000};
  std::chrono::milliseconds upstream_timeout{120000};  // connect, read and total
  std::shared_ptr<net::HttpClient> upstream_client;    // null: net::RealHttpClient()
  // The upstream puts its reasoning at the start of content between <think>
  // tags: the service takes that block off before relaying, so the reply's
  // own <think> is the only one (docs/protocols.md, "Inline reasoning").
  bool inline_reasoning = false;
  std::string host = "127.0.0.1";
  int port = 0;  // 0: an ephemeral port
};

class GymbroService {
 public:
  // Starts listening. Errors: no upstream URL, a non-positive interval, or
  // the port cannot be bound.
  static std::expected<std::unique_ptr<GymbroService>, Error> Start(GymbroServiceOptions options);

  ~GymbroService();  // stops
  GymbroService(const GymbroService&) = delete;
  GymbroService& operator=(const GymbroService&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT"

  // Ends every stream not finished yet with an `error` (service_stopping),
  // closes the listener, and returns when every thread has finished — an
  // upstream call blocked on a silent upstream ends at its timeout.
  // Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit GymbroService(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The client side of POST /api/v1/messages: sends `json_body` to
// "<base_url>/api/v1/messages" with X-Request-Id when given. An HTTP error
// status is returned, not an Error; Error: no connection, not an http URL,
// `timeout` (connect, read and total) passed.
std::expected<wire::HttpResponse, Error> PostGymbroMessage(
    const std::string& base_url, const std::string& json_body,
    const std::optional<std::string>& request_id, std::chrono::milliseconds timeout,
    net::HttpClient& client = *net::RealHttpClient());

}  // namespace llmconform::harness
