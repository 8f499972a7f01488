// `mockllm serve --proxy URL --record-to FILE`: requests that match no
// recorded exchange on the unpinned routes are forwarded to a real upstream,
// answered with what it sends, and recorded (vcrpy's "new_episodes" mode).
// The forwarding and recording are mockllm::Recorder's, run on a private
// loopback port: the same headers are forwarded, the same secrets redacted
// before anything is written, and each exchange is appended to FILE when it
// ends (FILE is created with a header when absent, appended to otherwise).
// The proxied answer reaches the client when the upstream has finished it.
#pragma once

#include <expected>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "mockllm/recorder.h"

namespace llmconform::mockllm {

struct ProxiedAnswer {
  int status = 0;
  std::vector<std::pair<std::string, std::string>> headers;  // without framing headers
  std::string content_type;
  std::string body;
};

class Proxy {
 public:
  // Errors: a bad upstream URL, FILE cannot be created or appended to.
  static std::expected<std::unique_ptr<Proxy>, Error> Start(const std::string& upstream,
                                                            const std::string& record_to,
                                                            int upstream_timeout_seconds = 600);
  ~Proxy();
  Proxy(const Proxy&) = delete;
  Proxy& operator=(const Proxy&) = delete;

  const std::string& upstream() const { return upstream_; }
  // Forwards one request (`target`: path and query; `headers` as received).
  // Error: the upstream could not be reached.
  std::expected<ProxiedAnswer, Error> Forward(
      const std::string& method, const std::string& target,
      const std::vector<std::pair<std::string, std::string>>& headers, const std::string& body,
      const std::string& content_type);
  void Stop();

 private:
  Proxy() = default;
  std::string upstream_;
  std::unique_ptr<Recorder> recorder_;
};

}  // namespace llmconform::mockllm
