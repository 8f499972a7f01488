#include "harness/http_transport.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>

#include "base/format.h"

namespace llmconform::harness {
namespace {

class HttpTransport final : public wire::ChatTransport {
 public:
  explicit HttpTransport(std::string base_url)
      : base_url_(std::move(base_url)), parts_(SplitHttpUrl(base_url_).value_or(UrlParts{})) {}

  std::expected<wire::HttpResponse, Error> PostJson(
      std::string_view path, const std::string& json_body, std::chrono::milliseconds timeout,
      const std::function<bool(std::string_view)>& on_bytes) override {
    const std::string url = base_url_ + std::string(path);
    if (parts_.origin.empty()) {
      return std::unexpected(Error{Format("POST {}: not an http(s) URL", url)});
    }
    httplib::Client client(parts_.origin);
    const auto secs = std::chrono::duration_cast<std::chrono::seconds>(timeout);
    const auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(timeout - secs);
    client.set_connection_timeout(secs.count(), usecs.count());
    client.set_read_timeout(secs.count(), usecs.count());
    client.set_write_timeout(secs.count(), usecs.count());
    client.set_keep_alive(false);

    const auto deadline = std::chrono::steady_clock::now() + timeout;
    bool timed_out = false;
    wire::HttpResponse out;
    httplib::Request req;
    req.method = "POST";
    req.path = parts_.path + std::string(path);
    req.headers = {{"Content-Type", "application/json"},
                   {"Accept", "application/json, text/event-stream"}};
    req.body = json_body;
    req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
      out.body.append(data, len);
      if (std::chrono::steady_clock::now() > deadline) {
        timed_out = true;
        return false;
      }
      return !on_bytes || on_bytes(std::string_view(data, len));
    };
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    const bool ok = client.send(req, res, err);
    if (!ok) {
      const bool past_deadline =
          std::chrono::steady_clock::now() >= deadline - std::chrono::milliseconds(100);
      if (timed_out || ((err == httplib::Error::Read || err == httplib::Error::ConnectionTimeout) &&
                        past_deadline)) {
        return std::unexpected(
            Error{Format("POST {}: timed out after {} ms", url, timeout.count())});
      }
      if (err == httplib::Error::Canceled)
        return std::unexpected(Error{Format("POST {}: cancelled by the client", url)});
      return std::unexpected(Error{Format("POST {}: {}", url, httplib::to_string(err))});
    }
    out.status = res.status;
    for (const auto& [k, v] : res.headers) {
      std::string key = k;
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      out.headers[key] = v;
    }
    return out;
  }

 private:
  std::string base_url_;
  UrlParts parts_;
};

}  // namespace

std::unique_ptr<wire::ChatTransport> MakeHttpTransport(std::string base_url) {
  return std::make_unique<HttpTransport>(std::move(base_url));
}

}  // namespace llmconform::harness
