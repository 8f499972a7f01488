#include "harness/http_client.h"

#include <httplib.h>

#include <algorithm>
#include <atomic>
#include <cctype>
#include <condition_variable>
#include <mutex>
#include <thread>

#include "base/format.h"
#include "base/url.h"

namespace llmconform::harness {
namespace {

using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

template <typename Set>
void SetTimeout(Set set, milliseconds t) {
  const auto secs = std::chrono::duration_cast<std::chrono::seconds>(t);
  const auto usecs = std::chrono::duration_cast<std::chrono::microseconds>(t - secs);
  set(secs.count(), usecs.count());
}

std::string TimedOut(milliseconds t) { return Format("timed out after {} ms", t.count()); }

void CopyHead(const httplib::Response& res, wire::HttpResponse& out) {
  out.status = res.status;
  out.headers.clear();
  for (const auto& [k, v] : res.headers) {
    std::string key = k;
    std::transform(key.begin(), key.end(), key.begin(),
                   [](unsigned char c) { return std::tolower(c); });
    out.headers[key] = v;
  }
}

class CppHttplibClient final : public HttpClient {
 public:
  std::expected<wire::HttpResponse, HttpError> Send(const HttpRequest& request,
                                                    const HttpTimeouts& timeouts,
                                                    const HttpHandlers& handlers) override {
    const auto parts = SplitHttpUrl(request.url);
    if (!parts)
      return std::unexpected(MakeHttpError(request, HttpFailure::kBadUrl, "not an http(s) URL"));
    httplib::Client client(parts->origin);
    SetTimeout([&](auto s, auto us) { client.set_connection_timeout(s, us); }, timeouts.connect);
    SetTimeout([&](auto s, auto us) { client.set_read_timeout(s, us); }, timeouts.read);
    SetTimeout([&](auto s, auto us) { client.set_write_timeout(s, us); }, timeouts.read);
    client.set_keep_alive(false);

    const auto start = Clock::now();
    const auto deadline = start + timeouts.total;
    std::atomic<bool> deadline_passed = false;
    bool cancelled = false;
    auto last_activity = start;
    wire::HttpResponse out;

    httplib::Request req;
    req.method = request.method;
    req.path = parts->path.empty() ? "/" : parts->path;
    for (const auto& [name, value] : request.headers) req.headers.emplace(name, value);
    req.body = request.body;
    req.response_handler = [&](const httplib::Response& res) {
      last_activity = Clock::now();
      CopyHead(res, out);
      if (handlers.on_head && !handlers.on_head(out)) {
        cancelled = true;
        return false;
      }
      return true;
    };
    req.content_receiver = [&](const char* data, std::size_t len, std::uint64_t, std::uint64_t) {
      last_activity = Clock::now();
      if (last_activity > deadline) {
        deadline_passed = true;
        return false;
      }
      if (!handlers.on_body) {
        out.body.append(data, len);
        return true;
      }
      if (!handlers.on_body(std::string_view(data, len))) {
        cancelled = true;
        return false;
      }
      return true;
    };

    // The total deadline: a server that sends a byte just inside each read
    // timeout would otherwise hold the call for ever.
    std::mutex mu;
    std::condition_variable cv;
    bool finished = false;
    std::thread watchdog([&] {
      std::unique_lock lock(mu);
      if (!cv.wait_until(lock, deadline, [&] { return finished; })) {
        deadline_passed = true;
        client.stop();
      }
    });
    httplib::Response res;
    httplib::Error err = httplib::Error::Success;
    const bool ok = client.send(req, res, err);
    {
      std::lock_guard lock(mu);
      finished = true;
    }
    cv.notify_all();
    watchdog.join();

    // The deadline first: when the watchdog stops a body that ends with the
    // connection, cpp-httplib takes the close for the body's end and reports
    // success.
    if (deadline_passed)
      return std::unexpected(
          MakeHttpError(request, HttpFailure::kTimeout, TimedOut(timeouts.total)));
    if (ok) {
      CopyHead(res, out);
      return out;
    }
    if (cancelled) {
      return std::unexpected(
          MakeHttpError(request, HttpFailure::kCancelled, "cancelled by the client"));
    }
    switch (err) {
      case httplib::Error::ConnectionTimeout:
        return std::unexpected(
            MakeHttpError(request, HttpFailure::kTimeout, TimedOut(timeouts.connect)));
      case httplib::Error::Read:
      case httplib::Error::Write: {
        // A read or write that waited out the read timeout, or a peer that
        // went away.
        const auto slack = std::min(timeouts.read / 10, milliseconds(100));
        if (Clock::now() - last_activity >= timeouts.read - slack) {
          return std::unexpected(
              MakeHttpError(request, HttpFailure::kTimeout, TimedOut(timeouts.read)));
        }
        break;
      }
      case httplib::Error::Connection:
      case httplib::Error::BindIPAddress:
      case httplib::Error::SSLConnection:
      case httplib::Error::SSLLoadingCerts:
      case httplib::Error::SSLServerVerification:
        return std::unexpected(
            MakeHttpError(request, HttpFailure::kUnreachable, httplib::to_string(err)));
      default:
        break;
    }
    return std::unexpected(MakeHttpError(request, HttpFailure::kBroken, httplib::to_string(err)));
  }
};

}  // namespace

HttpError MakeHttpError(const HttpRequest& request, HttpFailure failure, std::string what) {
  std::string message = Format("{} {}: {}", request.method, request.url, what);
  return HttpError{failure, std::move(what), std::move(message)};
}

std::shared_ptr<HttpClient> RealHttpClient() {
  static const std::shared_ptr<HttpClient> client = std::make_shared<CppHttplibClient>();
  return client;
}

}  // namespace llmconform::harness
