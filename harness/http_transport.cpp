#include "harness/http_transport.h"

#include <algorithm>
#include <charconv>
#include <optional>
#include <thread>

#include "base/json_read.h"
#include "protocols/wire/chat.h"

namespace llmconform::harness {
namespace {

constexpr int kMaxRetries = 2;
constexpr std::chrono::milliseconds kMaxRetryDelay{2000};

// How long a response's head asks the client to wait before asking again:
// `retry-after-ms` (milliseconds) or `retry-after` (whole or decimal
// seconds). nullopt when it does not say, says a date or more than
// kMaxRetryDelay, or cannot be a rate limit: a status other than 429, or a
// 200 that is not a JSON body (some gateways, OpenRouter among them, answer
// a rate limit 200 with an error body, DIA-ERROR-WITH-200).
std::optional<std::chrono::milliseconds> RetryDelay(const wire::HttpResponse& r) {
  const auto type = r.headers.find("content-type");
  const bool json_200 =
      r.status == 200 && type != r.headers.end() && type->second.find("json") != std::string::npos;
  if (r.status != 429 && !json_200) return std::nullopt;
  const auto number = [](const std::string& text) -> std::optional<double> {
    double v = 0;
    const char* end = text.data() + text.size();
    const auto [ptr, ec] = std::from_chars(text.data(), end, v);
    if (ec != std::errc() || ptr != end || !(v >= 0)) return std::nullopt;
    return v;
  };
  std::optional<double> ms;
  if (auto it = r.headers.find("retry-after-ms"); it != r.headers.end()) {
    ms = number(it->second);
  } else if (auto it = r.headers.find("retry-after"); it != r.headers.end()) {
    if (auto s = number(it->second)) ms = *s * 1000;
  }
  if (!ms || *ms > static_cast<double>(kMaxRetryDelay.count())) return std::nullopt;
  return std::chrono::milliseconds(static_cast<long long>(*ms));
}

// A rate limit: HTTP 429, or a 200 whose body is an error with code 429 or
// OpenAI's "rate_limit_exceeded".
bool RateLimited(const wire::HttpResponse& r) {
  if (r.status == 429) return true;
  if (r.status != 200) return false;
  const auto error = wire::ErrorBodyFromJson(ReadJsonOrDiscarded(r.body));
  return error &&
         (error->code == 429 || error->code == "429" || error->code == "rate_limit_exceeded");
}

class HttpTransport final : public wire::ChatTransport {
 public:
  HttpTransport(std::string base_url, std::shared_ptr<net::HttpClient> client)
      : base_url_(std::move(base_url)),
        client_(client ? std::move(client) : net::RealHttpClient()) {}

  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds timeout,
      const std::function<bool(std::string_view)>& on_bytes) override {
    const net::HttpRequest request{
        "POST",
        base_url_ + std::string(path),
        {{"Content-Type", "application/json"}, {"Accept", "application/json, text/event-stream"}},
        json_body};
    const auto deadline = std::chrono::steady_clock::now() + timeout;
    for (int attempt = 0;; ++attempt) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(
          deadline - std::chrono::steady_clock::now());
      bool held = false;  // maybe a rate limit to retry: its body is not passed on
      std::string body;
      auto result =
          client_->Send(request,
                        net::HttpTimeouts::All(
                            attempt == 0 ? timeout : std::max(left, std::chrono::milliseconds(1))),
                        {.on_head =
                             [&](const wire::HttpResponse& head) {
                               held = attempt < kMaxRetries && RetryDelay(head).has_value();
                               return true;
                             },
                         .on_body =
                             [&](std::string_view bytes) {
                               body.append(bytes);
                               return held || !on_bytes || on_bytes(bytes);
                             }});
      if (!result) return std::unexpected(Error::Io(result.error().message));
      result->body = std::move(body);
      const auto delay = held && RateLimited(*result) ? RetryDelay(*result) : std::nullopt;
      if (delay && std::chrono::steady_clock::now() + *delay < deadline) {
        std::this_thread::sleep_for(*delay);
        continue;
      }
      if (held && on_bytes) on_bytes(result->body);  // not retried after all
      return std::move(*result);
    }
  }

 private:
  std::string base_url_;
  std::shared_ptr<net::HttpClient> client_;
};

}  // namespace

std::unique_ptr<wire::ChatTransport> MakeHttpTransport(std::string base_url,
                                                       std::shared_ptr<net::HttpClient> client) {
  return std::make_unique<HttpTransport>(std::move(base_url), std::move(client));
}

}  // namespace llmconform::harness
