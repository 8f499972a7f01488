#include "net/http_client.h"

#include <openssl/ssl.h>
#include <openssl/x509v3.h>

#include <algorithm>
#include <boost/asio/connect.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/ssl.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core.hpp>
#include <boost/beast/http.hpp>
#include <boost/beast/ssl.hpp>
#include <cctype>
#include <cstdint>
#include <limits>
#include <optional>
#include <stop_token>

#include "base/format.h"
#include "base/url.h"

namespace llmconform::net {
namespace {

namespace asio = boost::asio;
namespace beast = boost::beast;
namespace http = beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using std::chrono::milliseconds;

std::string TimedOut(milliseconds t) { return Format("timed out after {} ms", t.count()); }

// Where a URL's origin leads.
struct Endpoint {
  bool tls = false;
  std::string host;  // without brackets
  std::string port;
  std::string host_header;  // as the Host header gives it
};

std::optional<Endpoint> ParseOrigin(std::string_view origin) {
  Endpoint e;
  const auto scheme_end = origin.find("://");
  e.tls = origin.substr(0, scheme_end) == "https";
  std::string_view authority = origin.substr(scheme_end + 3);
  authority = authority.substr(0, authority.find_first_of("?#"));
  if (const auto at = authority.rfind('@'); at != std::string_view::npos)
    authority = authority.substr(at + 1);
  if (authority.empty()) return std::nullopt;
  e.host_header = std::string(authority);
  std::string_view port;
  if (authority.front() == '[') {
    const auto close = authority.find(']');
    if (close == std::string_view::npos) return std::nullopt;
    e.host = std::string(authority.substr(1, close - 1));
    if (close + 1 < authority.size()) {
      if (authority[close + 1] != ':') return std::nullopt;
      port = authority.substr(close + 2);
    }
  } else if (const auto colon = authority.rfind(':'); colon != std::string_view::npos) {
    e.host = std::string(authority.substr(0, colon));
    port = authority.substr(colon + 1);
  } else {
    e.host = std::string(authority);
  }
  if (e.host.empty() ||
      !std::all_of(port.begin(), port.end(), [](unsigned char c) { return std::isdigit(c); }))
    return std::nullopt;
  e.port = port.empty() ? (e.tls ? "443" : "80") : std::string(port);
  return e;
}

// The verification context of every TLS call: the system's CAs, the peer
// verified (its name by SSL_set1_host per call).
// `ca_file` ("": the system's CAs) holds the trusted certificates.
std::expected<std::shared_ptr<asio::ssl::context>, Error> TlsContext(const std::string& ca_file) {
  auto c = std::make_shared<asio::ssl::context>(asio::ssl::context::tls_client);
  beast::error_code ec;
  if (ca_file.empty()) {
    c->set_default_verify_paths(ec);
  } else {
    c->load_verify_file(ca_file, ec);
  }
  if (ec && !ca_file.empty())
    return std::unexpected(
        Error{Format("{}: no CA certificates read ({})", ca_file, ec.message())});
  c->set_verify_mode(asio::ssl::verify_peer);
  return c;
}

// One exchange on one connection. Every operation runs with the stream's
// expiry set to the nearer of its own limit and the total deadline, so no
// watchdog thread is needed and nothing blocks past the deadline.
class Exchange {
 public:
  Exchange(const HttpRequest& request, const HttpTimeouts& timeouts, const HttpHandlers& handlers,
           asio::ssl::context& tls)
      : request_(request),
        timeouts_(timeouts),
        handlers_(handlers),
        tls_(tls),
        deadline_(Clock::now() + timeouts.total),
        // A stop from another thread cancels the operation under way; Fail
        // and the checks between operations then report kCancelled.
        on_stop_(handlers.stop, [this] {
          asio::post(ioc_, [this] {
            if (abort_) abort_();
          });
        }) {}

  std::expected<HttpResponse, HttpError> Run() {
    const auto parts = SplitHttpUrl(request_.url);
    std::optional<Endpoint> endpoint;
    if (parts) endpoint = ParseOrigin(parts->origin);
    if (!endpoint) return Fail(HttpFailure::kBadUrl, "not an http(s) URL");
    endpoint_ = *endpoint;
    // The target as the URL spells it after the origin (SplitHttpUrl's path
    // drops trailing slashes, which a forwarded request must keep).
    path_ = request_.url.substr(parts->origin.size());
    if (path_.empty()) path_ = "/";
    if (path_.front() == '?') path_ = "/" + path_;

    if (Stopped()) return Cancelled();
    tcp::resolver resolver(ioc_);
    beast::error_code ec;
    tcp::resolver::results_type addresses;
    {
      abort_ = [&] { resolver.cancel(); };
      asio::steady_timer timer(ioc_);
      timer.expires_at(Limit(timeouts_.connect));
      timer.async_wait([&](beast::error_code e) {
        if (!e) resolver.cancel();
      });
      resolver.async_resolve(endpoint_.host, endpoint_.port,
                             [&](beast::error_code e, tcp::resolver::results_type r) {
                               ec = e;
                               addresses = std::move(r);
                               timer.cancel();
                             });
      RunAll();
      abort_ = nullptr;
    }
    if (Stopped()) return Cancelled();
    if (ec == asio::error::operation_aborted) return TimeoutOf(timeouts_.connect);
    if (ec) return Fail(HttpFailure::kUnreachable, ec.message());

    if (!endpoint_.tls) {
      beast::tcp_stream stream(ioc_);
      abort_ = [&] { stream.cancel(); };
      if (auto ok = Connect(stream, addresses); !ok) return std::unexpected(ok.error());
      return Talk(stream);
    }
    beast::ssl_stream<beast::tcp_stream> stream(ioc_, tls_);
    abort_ = [&] { beast::get_lowest_layer(stream).cancel(); };
    if (auto ok = Connect(beast::get_lowest_layer(stream), addresses); !ok)
      return std::unexpected(ok.error());
    SSL* ssl = stream.native_handle();
    // An IP address is verified against the certificate's IP names (and sent
    // as no server name); a host name against its DNS names.
    beast::error_code not_ip;
    asio::ip::make_address(endpoint_.host, not_ip);
    if (!not_ip) {
      X509_VERIFY_PARAM_set1_ip_asc(SSL_get0_param(ssl), endpoint_.host.c_str());
    } else {
      SSL_set_tlsext_host_name(ssl, endpoint_.host.c_str());
      SSL_set1_host(ssl, endpoint_.host.c_str());
    }
    beast::get_lowest_layer(stream).expires_at(Limit(timeouts_.connect));
    stream.async_handshake(asio::ssl::stream_base::client, [&](beast::error_code e) { ec = e; });
    RunAll();
    if (ec == beast::error::timeout) return TimeoutOf(timeouts_.connect);
    if (ec) return Fail(HttpFailure::kUnreachable, "TLS: " + ec.message());
    return Talk(stream);
  }

 private:
  // Every failure once a stop was requested is the stop's (kCancelled).
  std::unexpected<HttpError> Fail(HttpFailure failure, std::string what) const {
    if (Stopped() && failure != HttpFailure::kBadUrl) return Cancelled();
    return std::unexpected(MakeHttpError(request_, failure, std::move(what)));
  }
  bool Stopped() const { return handlers_.stop.stop_requested(); }
  std::unexpected<HttpError> Cancelled() const {
    return std::unexpected(
        MakeHttpError(request_, HttpFailure::kCancelled, "cancelled by the client"));
  }
  // A stream timeout: the total deadline's when that has passed, else `limit`'s.
  std::unexpected<HttpError> TimeoutOf(milliseconds limit) const {
    return Fail(HttpFailure::kTimeout,
                TimedOut(Clock::now() >= deadline_ ? timeouts_.total : limit));
  }
  Clock::time_point Limit(milliseconds t) const { return std::min(deadline_, Clock::now() + t); }
  void RunAll() {
    ioc_.restart();
    ioc_.run();
  }

  std::expected<void, HttpError> Connect(beast::tcp_stream& stream,
                                         const tcp::resolver::results_type& addresses) {
    beast::error_code ec;
    stream.expires_at(Limit(timeouts_.connect));
    stream.async_connect(addresses, [&](beast::error_code e, const tcp::endpoint&) { ec = e; });
    RunAll();
    if (ec == beast::error::timeout) return TimeoutOf(timeouts_.connect);
    if (ec) return Fail(HttpFailure::kUnreachable, ec.message());
    return {};
  }

  template <typename Stream>
  std::expected<HttpResponse, HttpError> Talk(Stream& stream) {
    auto& tcp_stream = beast::get_lowest_layer(stream);
    beast::error_code ec;
    http::request<http::string_body> req;
    const http::verb verb = http::string_to_verb(request_.method);
    if (verb == http::verb::unknown)
      req.method_string(request_.method);
    else
      req.method(verb);
    req.target(path_);
    req.version(11);
    req.set(http::field::host, endpoint_.host_header);
    for (const auto& [name, value] : request_.headers) req.insert(name, value);
    req.set(http::field::connection, "close");
    if (!request_.body.empty() || verb == http::verb::post || verb == http::verb::put) {
      req.body() = request_.body;
      req.prepare_payload();
    }
    if (Stopped()) return Cancelled();
    tcp_stream.expires_at(Limit(timeouts_.read));
    http::async_write(stream, req, [&](beast::error_code e, std::size_t) { ec = e; });
    RunAll();
    if (ec == beast::error::timeout) return TimeoutOf(timeouts_.read);
    if (ec) return Fail(HttpFailure::kBroken, "Write: " + ec.message());

    beast::flat_buffer buffer;
    http::response_parser<http::buffer_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(kMaxResponseHeadBytes));
    parser.body_limit((std::numeric_limits<std::uint64_t>::max)());  // bodies are streamed
    if (verb == http::verb::head) parser.skip(true);
    if (Stopped()) return Cancelled();
    tcp_stream.expires_at(Limit(timeouts_.read));
    http::async_read_header(stream, buffer, parser,
                            [&](beast::error_code e, std::size_t) { ec = e; });
    RunAll();
    if (ec == beast::error::timeout) return TimeoutOf(timeouts_.read);
    if (ec == http::error::header_limit)
      return Fail(HttpFailure::kBroken,
                  Format("the response head (status line and headers) is longer than {} bytes",
                         kMaxResponseHeadBytes));
    if (ec) return Fail(HttpFailure::kBroken, "Read: " + ec.message());

    HttpResponse out;
    const auto& head = parser.get();
    out.status = static_cast<int>(head.result_int());
    for (const auto& field : head) {
      const auto name = field.name_string();
      const auto value = field.value();
      std::string key(name.data(), name.size());
      std::transform(key.begin(), key.end(), key.begin(),
                     [](unsigned char c) { return std::tolower(c); });
      out.headers[key] = std::string(value.data(), value.size());
      out.fields.emplace_back(std::string(name.data(), name.size()),
                              std::string(value.data(), value.size()));
    }
    if (handlers_.on_head && !handlers_.on_head(out))
      return Fail(HttpFailure::kCancelled, "cancelled by the client");

    char chunk[64 * 1024];
    while (!parser.is_done()) {
      if (Stopped()) return Cancelled();
      parser.get().body().data = chunk;
      parser.get().body().size = sizeof chunk;
      tcp_stream.expires_at(Limit(timeouts_.read));
      http::async_read_some(stream, buffer, parser,
                            [&](beast::error_code e, std::size_t) { ec = e; });
      RunAll();
      if (ec == http::error::need_buffer) ec = {};
      const std::size_t got = sizeof chunk - parser.get().body().size;
      if (got > 0) {
        const std::string_view bytes(chunk, got);
        if (!handlers_.on_body) {
          out.body.append(bytes);
        } else if (!handlers_.on_body(bytes)) {
          return Fail(HttpFailure::kCancelled, "cancelled by the client");
        }
      }
      if (ec == beast::error::timeout) return TimeoutOf(timeouts_.read);
      if (ec) return Fail(HttpFailure::kBroken, "Read: " + ec.message());
      if (Clock::now() >= deadline_ && !parser.is_done()) return TimeoutOf(timeouts_.total);
    }
    return out;
  }

  const HttpRequest& request_;
  const HttpTimeouts& timeouts_;
  const HttpHandlers& handlers_;
  asio::ssl::context& tls_;
  const Clock::time_point deadline_;
  asio::io_context ioc_;
  // Cancels the operation under way; set and run on the calling thread only.
  std::function<void()> abort_;
  Endpoint endpoint_;
  std::string path_;
  std::stop_callback<std::function<void()>> on_stop_;  // last: goes first
};

class BeastHttpClient final : public HttpClient {
 public:
  explicit BeastHttpClient(std::shared_ptr<asio::ssl::context> tls) : tls_(std::move(tls)) {}
  std::expected<HttpResponse, HttpError> Send(const HttpRequest& request,
                                              const HttpTimeouts& timeouts,
                                              const HttpHandlers& handlers) override {
    return Exchange(request, timeouts, handlers, *tls_).Run();
  }

 private:
  std::shared_ptr<asio::ssl::context> tls_;
};

}  // namespace

HttpError MakeHttpError(const HttpRequest& request, HttpFailure failure, std::string what) {
  std::string message = Format("{} {}: {}", request.method, request.url, what);
  return HttpError{failure, std::move(what), std::move(message)};
}

std::shared_ptr<HttpClient> RealHttpClient() {
  static const std::shared_ptr<HttpClient> client =
      std::make_shared<BeastHttpClient>(*TlsContext(""));
  return client;
}

std::expected<std::shared_ptr<HttpClient>, Error> RealHttpClient(const std::string& ca_file) {
  if (ca_file.empty()) return RealHttpClient();
  auto tls = TlsContext(ca_file);
  if (!tls) return std::unexpected(tls.error());
  return std::make_shared<BeastHttpClient>(std::move(*tls));
}

}  // namespace llmconform::net
