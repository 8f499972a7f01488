// `mockllm serve --proxy URL --record-to FILE`: requests that match no
// recorded exchange on the unpinned routes are forwarded to a real upstream,
// answered with what it sends, and recorded (vcrpy's "new_episodes" mode).
// The forwarding and recording are mockllm::Recording's (recording.h), in
// process: the same headers are forwarded as by `mockllm record`, the same
// secrets redacted before anything is written, the same 64 KiB cap holds on
// the upstream's response head and the same --upstream-timeout on connecting
// and on each silence; each exchange is appended to FILE when it ends (FILE
// is created with a header when absent, appended to otherwise). The proxied
// answer reaches the client when the upstream has finished it.
#pragma once

#include <expected>
#include <memory>
#include <stop_token>
#include <string>
#include <utility>
#include <vector>

#include "mockllm/recording.h"

namespace llmconform::mockllm {

struct ProxiedAnswer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // without framing headers
  std::string content_type;
  std::string body;
};

class Proxy {
 public:
  // `options.append` is set when the file exists. Errors: those of
  // Recording::Open (a bad upstream URL, FILE cannot be created or appended
  // to), after "--proxy: ". `client`: the upstream's (null: the real one).
  static std::expected<std::unique_ptr<Proxy>, Error> Start(
      RecordingOptions options, std::shared_ptr<net::HttpClient> client = nullptr);
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  const std::string& upstream() const { return recording_->options().upstream; }
  // Forwards one request and records the exchange: a whole answer, or an
  // event stream that broke off (with its cut, as `mockllm record` keeps it).
  // Error (naming the upstream, the request and why): the upstream could not
  // be reached, timed out, sent a head over 64 KiB or a status outside
  // 200-599, broke off, or the proxy was stopped.
  std::expected<ProxiedAnswer, Error> Forward(const ForwardRequest& request);
  // Cancels the forwards in flight (they fail at once). Idempotent.
  void Stop();

 private:
  Proxy() = default;
  std::unique_ptr<Recording> recording_;
  std::stop_source stop_;
};

}  // namespace llmconform::mockllm
