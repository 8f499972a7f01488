#include "mockllm/http_listener.h"

#include "mockllm/http_conn.h"

namespace llmconform::mockllm {

void HttpListener::Impl::Accept() {
  asio::io_context& target = *contexts[next_context++ % contexts.size()];
  acceptor->async_accept(target, [this](const boost::system::error_code& ec, tcp::socket sock) {
    if (stopping || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors, most likely: try again shortly rather than spin.
      accept_backoff->expires_after(std::chrono::milliseconds(10));
      accept_backoff->async_wait([this](const boost::system::error_code& e) {
        if (!e && !stopping) Accept();
      });
      return;
    }
    OnAccepted(std::move(sock));
    // Takes every connection already waiting: one accept per turn of the
    // loop would let 512 connections opened at once wait behind the answers
    // of the ones accepted first.
    for (int i = 0; i < 1024 && !stopping; ++i) {
      boost::system::error_code e;
      tcp::socket more = acceptor->accept(*contexts[next_context++ % contexts.size()], e);
      if (e) break;  // would block: none left
      OnAccepted(std::move(more));
    }
    Accept();
  });
}

void HttpListener::Impl::OnAccepted(tcp::socket sock) {
  boost::system::error_code ec;
  sock.set_option(tcp::no_delay(true), ec);
  sock.non_blocking(true, ec);
  std::unique_lock lock(mu);
  if (stopping) return;
  if (open.size() >= static_cast<std::size_t>(std::max(1, options.max_connections))) {
    lock.unlock();
    refused_busy.fetch_add(1, std::memory_order_relaxed);
    return RefuseBusy(sock);
  }
  auto conn = std::make_shared<Conn>(*this, std::move(sock));
  open.insert(conn.get());
  lock.unlock();
  // Reads first, then waits: the socket is registered (edge-triggered) on
  // its context already, so the request's arrival may have been reported
  // before anyone waited, and an async_wait alone would sleep until the
  // next byte that never comes. Every wait for bytes follows a read that
  // found none, on the same thread.
  asio::post(conn->ioc, [conn] { conn->OnReadable(); });
}

// Over capacity: answers 503 at once rather than leave the client waiting;
// the socket closes with `sock`.
void HttpListener::Impl::RefuseBusy(tcp::socket& sock) {
  const int fd = sock.native_handle();
  char drop[4096];
  for (int i = 0; i < 16 && ::recv(fd, drop, sizeof drop, MSG_DONTWAIT) > 0; ++i) {
  }
  HttpResponse res;
  AnswerJson(res, 503,
             llmconform::wire::MakeErrorJson(
                 Format("mockllm has {} connections open, its limit (--max-connections); try "
                        "again later",
                        options.max_connections),
                 "server_error", nullptr, "server_busy"));
  res.SetHeader("Retry-After", "1");
  const std::string answer = ResponseHead(res, FramingOf(res), false, false, 0).append(res.Bytes());
  iovec iov = Iov(answer);
  SendAll(fd, &iov, 1, {});
  ::shutdown(fd, SHUT_WR);
}

HttpListener::HttpListener() : impl_(std::make_unique<Impl>()) {}
HttpListener::~HttpListener() { Stop(); }

OpenFileLimit RaiseOpenFileLimit() {
  rlimit r{};
  if (::getrlimit(RLIMIT_NOFILE, &r) != 0) return {};
  OpenFileLimit out{.before = r.rlim_cur, .now = r.rlim_cur};
  if (r.rlim_cur < r.rlim_max) {
    rlimit raised = r;
    raised.rlim_cur = r.rlim_max;
    // The hard limit may be RLIM_INFINITY, which Linux does not take for
    // RLIMIT_NOFILE: then the most it does take (fs.nr_open).
    if (::setrlimit(RLIMIT_NOFILE, &raised) != 0) {
      std::uint64_t nr_open = 0;
      if (std::FILE* f = std::fopen("/proc/sys/fs/nr_open", "r")) {
        if (std::fscanf(f, "%lu", &nr_open) != 1) nr_open = 0;
        std::fclose(f);
      }
      raised.rlim_cur = std::min<rlim_t>(r.rlim_max, nr_open);
      if (raised.rlim_cur <= r.rlim_cur || ::setrlimit(RLIMIT_NOFILE, &raised) != 0) return out;
    }
    out.now = raised.rlim_cur;
  }
  return out;
}

std::uint64_t OpenDescriptors() {
  std::error_code ec;
  std::uint64_t n = 0;
  for (std::filesystem::directory_iterator it("/proc/self/fd", ec), end; !ec && it != end;
       it.increment(ec))
    ++n;
  return ec ? 0 : n;
}

int ConnectionsWithin(int requested, std::uint64_t limit, std::uint64_t in_use) {
  requested = std::max(requested, 1);
  const std::uint64_t taken = in_use + kReservedDescriptors;
  const std::uint64_t room = limit > taken ? limit - taken : 1;
  return static_cast<int>(std::max<std::uint64_t>(
      1, std::min<std::uint64_t>(static_cast<std::uint64_t>(requested), room)));
}

std::optional<std::string> CheckFraming(HttpFields& headers) {
  const auto lengths = headers.equal_range("Content-Length");
  const auto encoding = headers.find("Transfer-Encoding");
  const bool chunked = encoding != headers.end();
  if (chunked) {
    // RFC 9112 §6.3: a request whose last transfer coding is not chunked has
    // no knowable length; read as no body, its bytes would pass for the next
    // request.
    std::string last = encoding->second.substr(encoding->second.rfind(',') + 1);
    std::erase_if(last, [](char c) { return c == ' ' || c == '\t'; });
    if (!http_io::IEquals(last, "chunked")) {
      return Format("Transfer-Encoding \"{}\" does not end in chunked",
                    encoding->second.substr(0, 64));
    }
  }
  if (lengths.first == lengths.second) {
    // RFC 9112 §6.3: no Content-Length and no Transfer-Encoding is an empty body.
    if (!chunked) headers.emplace("Content-Length", "0");
    return std::nullopt;
  }
  std::string first;
  for (auto it = lengths.first; it != lengths.second; ++it) {
    const std::string& v = it->second;
    if (v.empty() || v.size() > 19 ||
        !std::all_of(v.begin(), v.end(), [](char c) { return c >= '0' && c <= '9'; })) {
      return Format("Content-Length \"{}\" is not a decimal number of bytes", v.substr(0, 64));
    }
    if (!first.empty() && v != first) return std::string("conflicting Content-Length headers");
    first = v;
  }
  if (chunked) return std::string("both Content-Length and Transfer-Encoding");
  return std::nullopt;
}

std::expected<int, llmconform::Error> HttpListener::Start(const ListenOptions& options,
                                                          Handler handler, RefusedHook on_refused) {
  Impl& m = *impl_;
  if (m.started) return std::unexpected(llmconform::Error{"the listener was started already"});
  m.options = options;
  m.handler = std::move(handler);
  m.on_refused = std::move(on_refused);
  int io_threads = options.io_threads;
  if (io_threads <= 0)
    io_threads = static_cast<int>(std::clamp(std::thread::hardware_concurrency(), 1u, 4u));
  for (int i = 0; i < io_threads; ++i) m.contexts.push_back(std::make_unique<asio::io_context>(1));
  m.acceptor = std::make_unique<tcp::acceptor>(*m.contexts[0]);
  m.accept_backoff = std::make_unique<asio::steady_timer>(*m.contexts[0]);
  const auto fail = [&](const std::string& why) {
    return std::unexpected(
        llmconform::Error{Format("cannot listen on {}:{}: {}", options.host, options.port, why)});
  };
  boost::system::error_code ec;
  tcp::resolver resolver(*m.contexts[0]);
  const auto endpoints = resolver.resolve(options.host, std::to_string(options.port),
                                          tcp::resolver::numeric_service, ec);
  if (ec) return fail(ec.message());
  for (const auto& entry : endpoints) {
    boost::system::error_code e;
    m.acceptor->open(entry.endpoint().protocol(), e);
    if (!e) m.acceptor->set_option(asio::socket_base::reuse_address(true), e);
    if (!e) m.acceptor->bind(entry.endpoint(), e);
    if (!e) m.acceptor->listen(asio::socket_base::max_listen_connections, e);
    if (!e) break;
    ec = e;
    boost::system::error_code ignored;
    m.acceptor->close(ignored);
  }
  if (!m.acceptor->is_open()) return fail(ec ? ec.message() : "no address");
  m.acceptor->non_blocking(true, ec);  // Accept() drains the backlog without blocking
  const int port = m.acceptor->local_endpoint().port();
  m.pool = std::make_unique<http_io::WorkerPool>(
      static_cast<std::size_t>(std::max(1, options.threads)),
      static_cast<std::size_t>(std::max(1, options.max_connections)));
  for (auto& c : m.contexts) m.guards.push_back(asio::make_work_guard(*c));
  m.Accept();
  for (auto& c : m.contexts) m.io_threads.emplace_back([&ctx = *c] { ctx.run(); });
  m.started = true;
  return port;
}

std::size_t HttpListener::OpenConnections() const {
  std::lock_guard lock(impl_->mu);
  return impl_->open.size();
}

std::uint64_t HttpListener::RefusedConnections() const {
  return impl_->refused_busy.load(std::memory_order_relaxed);
}

void HttpListener::Stop() {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (!m.started || m.stopping) return;
    m.stopping = true;
    // Wakes every wait on these connections: an I/O thread's (readable at
    // end of stream) and a worker's (its poll and writes fail).
    for (Impl::Conn* c : m.open) ::shutdown(c->fd, SHUT_RDWR);
  }
  m.pool->Shutdown();
  asio::post(*m.contexts[0], [&m] {
    boost::system::error_code ignored;
    m.acceptor->close(ignored);
    m.accept_backoff->cancel();
  });
  for (auto& c : m.contexts) {
    asio::post(*c, [&m, ctx = c.get()] {
      boost::system::error_code ignored;
      std::lock_guard lock(m.mu);
      for (Impl::Conn* conn : m.open) {
        if (&conn->ioc != ctx) continue;
        conn->timer.cancel();
        conn->sock.cancel(ignored);
      }
    });
  }
  m.guards.clear();
  for (auto& t : m.io_threads) t.join();
}

}  // namespace llmconform::mockllm
