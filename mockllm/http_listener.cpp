#include "mockllm/http_listener.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <boost/asio/executor_work_guard.hpp>
#include <boost/asio/io_context.hpp>
#include <boost/asio/ip/tcp.hpp>
#include <boost/asio/post.hpp>
#include <boost/asio/steady_timer.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http/error.hpp>
#include <boost/beast/http/parser.hpp>
#include <boost/beast/http/status.hpp>
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstdio>
#include <deque>
#include <mutex>
#include <thread>
#include <unordered_set>

#include "base/format.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using Clock = std::chrono::steady_clock;
using llmconform::Format;

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
// How long a worker that has answered waits for the connection's next
// request before handing the connection back to the I/O thread.
constexpr auto kLinger = std::chrono::milliseconds(2);

bool IEquals(std::string_view a, std::string_view b) {
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), [](char x, char y) {
           return std::tolower(static_cast<unsigned char>(x)) ==
                  std::tolower(static_cast<unsigned char>(y));
         });
}

// Waits until `fd` is ready for `events` or `deadline` passes; false on
// timeout. A hang-up or error counts as ready (the next call says what).
bool WaitFd(int fd, short events, Clock::time_point deadline) {
  for (;;) {
    const auto left =
        std::chrono::duration_cast<std::chrono::microseconds>(deadline - Clock::now());
    if (left.count() <= 0) return false;
    pollfd p{fd, events, 0};
    timespec ts{static_cast<time_t>(left.count() / 1000000),
                static_cast<long>((left.count() % 1000000) * 1000)};
    const int r = ::ppoll(&p, 1, &ts, nullptr);
    if (r > 0) return true;
    if (r < 0 && errno != EINTR) return true;
  }
}

// Sends every byte of `iov[0..n)` (modified in place); false when the peer
// is gone or no byte could be sent before `deadline`.
bool SendAll(int fd, iovec* iov, int n, Clock::time_point deadline) {
  while (n > 0) {
    if (iov->iov_len == 0) {
      ++iov, --n;
      continue;
    }
    msghdr mh{};
    mh.msg_iov = iov;
    mh.msg_iovlen = static_cast<std::size_t>(n);
    const ssize_t w = ::sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
    if (w < 0) {
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) {
        if (!WaitFd(fd, POLLOUT, deadline)) return false;
        continue;
      }
      return false;
    }
    auto left = static_cast<std::size_t>(w);
    while (n > 0 && left >= iov->iov_len) {
      left -= iov->iov_len;
      ++iov, --n;
    }
    if (n > 0) {
      iov->iov_base = static_cast<char*>(iov->iov_base) + left;
      iov->iov_len -= left;
    }
  }
  return true;
}

iovec Iov(std::string_view s) { return iovec{const_cast<char*>(s.data()), s.size()}; }

std::string Str(boost::beast::string_view s) { return std::string(s.data(), s.size()); }

// Workers: `min` started at once, one more whenever a job arrives and none is
// idle, up to `max`; beyond that jobs wait in line. Threads stay until
// Shutdown, which runs what is queued and joins them.
class WorkerPool {
 public:
  WorkerPool(std::size_t min, std::size_t max) : max_(std::max<std::size_t>({min, max, 1})) {
    std::lock_guard lock(mu_);
    for (std::size_t i = 0; i < min; ++i) Spawn();
  }
  ~WorkerPool() { Shutdown(); }

  // After Shutdown the job is dropped (destroyed, not run).
  void Submit(std::function<void()> fn) {
    std::unique_lock lock(mu_);
    if (stopping_) {
      lock.unlock();
      fn = nullptr;
      return;
    }
    jobs_.push_back(std::move(fn));
    if (idle_ < jobs_.size() && threads_.size() < max_) Spawn();
    cv_.notify_one();
  }

  void Shutdown() {
    {
      std::lock_guard lock(mu_);
      if (stopping_) return;
      stopping_ = true;
    }
    cv_.notify_all();
    for (auto& t : threads_) t.join();
  }

 private:
  // Needs mu_.
  void Spawn() {
    threads_.emplace_back([this] {
      for (;;) {
        std::function<void()> fn;
        {
          std::unique_lock lock(mu_);
          ++idle_;
          cv_.wait(lock, [this] { return stopping_ || !jobs_.empty(); });
          --idle_;
          if (jobs_.empty()) return;  // stopping, nothing left
          fn = std::move(jobs_.front());
          jobs_.pop_front();
        }
        fn();
      }
    });
  }

  const std::size_t max_;
  std::mutex mu_;
  std::condition_variable cv_;
  std::deque<std::function<void()>> jobs_;
  std::vector<std::thread> threads_;
  std::size_t idle_ = 0;
  bool stopping_ = false;
};

// The request line and headers of a head that Beast refused, read line by
// line, so the framing check can say what was wrong and the refusal can be
// journaled with its method and path.
httplib::Request RawHead(std::string_view head) {
  httplib::Request req;
  const std::size_t end = head.find("\r\n\r\n");
  if (end != std::string_view::npos) head = head.substr(0, end);
  std::size_t at = head.find("\r\n");
  const std::string_view line = head.substr(0, at);
  const std::size_t sp1 = line.find(' ');
  const std::size_t sp2 = sp1 == std::string_view::npos ? sp1 : line.find(' ', sp1 + 1);
  if (sp2 != std::string_view::npos && sp1 > 0 && sp1 <= 32) {
    req.method = std::string(line.substr(0, sp1));
    req.target = std::string(line.substr(sp1 + 1, std::min<std::size_t>(sp2 - sp1 - 1, 8192)));
    req.path = req.target.substr(0, req.target.find('?'));
  }
  while (at != std::string_view::npos) {
    at += 2;
    const std::size_t next = head.find("\r\n", at);
    const std::string_view field =
        head.substr(at, next == std::string_view::npos ? next : next - at);
    const std::size_t colon = field.find(':');
    if (colon != std::string_view::npos) {
      std::string_view value = field.substr(colon + 1);
      while (!value.empty() && (value.front() == ' ' || value.front() == '\t'))
        value.remove_prefix(1);
      while (!value.empty() && (value.back() == ' ' || value.back() == '\t'))
        value.remove_suffix(1);
      req.headers.emplace(std::string(field.substr(0, colon)), std::string(value));
    }
    at = next;
  }
  return req;
}

// True when the client has sent its FIN (or reset the connection).
bool FinArrived(int fd) {
  pollfd p{fd, POLLRDHUP, 0};
  return ::poll(&p, 1, 0) > 0 && (p.revents & (POLLRDHUP | POLLHUP | POLLERR)) != 0;
}

bool SafeHeader(std::string_view name, std::string_view value) {
  const auto bad = [](char c) { return c == '\r' || c == '\n' || c == '\0'; };
  return !name.empty() && std::none_of(name.begin(), name.end(), bad) &&
         std::none_of(value.begin(), value.end(), bad);
}

std::string_view Reason(int status) {
  const auto r = http::obsolete_reason(static_cast<http::status>(status));
  return r == "<unknown-status>" ? std::string_view("Unknown")
                                 : std::string_view(r.data(), r.size());
}

}  // namespace

struct HttpListener::Impl {
  struct Conn;
  enum class Pumped { kComplete, kNeedMore, kClosed, kRefused };

  // Declared first, destroyed last: a connection destroyed with the pool or
  // the I/O context still unregisters itself.
  std::mutex mu;                   // guards open and stopping's transitions
  std::unordered_set<Conn*> open;  // connections not yet closed
  ListenOptions options;
  Handler handler;
  RefusedHook on_refused;
  asio::io_context ioc{1};
  std::optional<asio::executor_work_guard<asio::io_context::executor_type>> guard;
  tcp::acceptor acceptor{ioc};
  asio::steady_timer accept_backoff{ioc};
  std::thread io_thread;
  std::unique_ptr<WorkerPool> pool;
  std::atomic<bool> stopping = false;
  bool started = false;

  void Accept();
  void OnAccepted(tcp::socket sock);
};

// One connection. Owned by shared pointers held by whatever waits on it: an
// I/O-thread wait (socket readable or deadline) or a worker job. At any time
// exactly one of those uses it, so it needs no lock of its own.
struct HttpListener::Impl::Conn : std::enable_shared_from_this<Conn> {
  Conn(Impl& owner_in, tcp::socket s)
      : owner(owner_in), sock(std::move(s)), timer(owner_in.ioc), fd(sock.native_handle()) {
    boost::system::error_code ec;
    const auto remote = sock.remote_endpoint(ec);
    if (!ec) remote_addr = remote.address().to_string(), remote_port = remote.port();
    const auto local = sock.local_endpoint(ec);
    if (!ec) local_addr = local.address().to_string(), local_port = local.port();
    NewRequest(Clock::now() + std::chrono::milliseconds(owner.options.read_timeout_ms));
  }
  ~Conn() { Close(); }

  Impl& owner;
  tcp::socket sock;
  asio::steady_timer timer;
  const int fd;
  std::string remote_addr, local_addr;
  int remote_port = -1, local_port = -1;
  boost::beast::flat_buffer buf;
  std::optional<http::request_parser<http::string_body>> parser;
  bool head_checked = false;  // the head's framing was judged
  bool started = false;       // a byte of the current request arrived
  bool peer_eof = false;  // the client half-closed (or closed): no bytes follow the buffered ones
  // The client's FIN had arrived when the current answer began: a half-close
  // after its request, so the answer is written whole. A FIN that arrives
  // while a provider writes means the client left (docs/mockllm-server.md).
  bool fin_before_answer = false;
  bool closed = false;
  Clock::time_point idle_deadline, head_deadline, last_progress;
  std::uint64_t gen = 0;  // I/O thread only: which wait is current
  // Set when Pump returns kRefused.
  int refused_status = 0;
  std::string refused_message;
  std::string refused_code;
  httplib::Request refused_head;  // what was read of a head Beast refused

  void NewRequest(Clock::time_point idle_until) {
    parser.emplace();
    parser->header_limit(static_cast<std::uint32_t>(kMaxHeadBytes));
    parser->body_limit(owner.options.max_body_bytes);
    parser->eager(true);
    head_checked = false;
    started = false;
    idle_deadline = idle_until;
  }

  Clock::time_point Deadline() const {
    if (!started) return idle_deadline;
    if (!parser->is_header_done()) return head_deadline;
    return last_progress + std::chrono::milliseconds(owner.options.read_timeout_ms);
  }

  Pumped Refuse(int status, std::string message, std::string code) {
    refused_status = status;
    refused_message = std::move(message);
    refused_code = std::move(code);
    return Pumped::kRefused;
  }

  // `unparsed`: the bytes the failed parse was given (the head, for a
  // head Beast refused).
  Pumped RefuseParse(const boost::system::error_code& ec, std::string_view unparsed) {
    if (ec == http::error::body_limit) {
      return Refuse(413,
                    Format("the request body is larger than the limit of {} bytes",
                           owner.options.max_body_bytes),
                    "request_too_large");
    }
    if (ec == http::error::header_limit) {
      return Refuse(431,
                    Format("the request head is larger than the limit of {} bytes", kMaxHeadBytes),
                    "request_header_fields_too_large");
    }
    if (!parser->is_header_done()) {
      refused_head = RawHead(unparsed.substr(0, kMaxHeadBytes));
      if (auto bad = CheckFraming(refused_head.headers)) return Refuse(400, *bad, "bad_request");
    }
    return Refuse(400, Format("malformed HTTP request ({})", ec.message()), "bad_request");
  }

  // Reads what has arrived (never blocks) and parses it, until the request is
  // complete, more bytes are needed, the connection ended, or the request is
  // refused.
  Pumped Pump() {
    for (;;) {
      if (buf.size() > 0) {
        boost::system::error_code ec;
        // flat_buffer's consume only moves its read position: this stays valid.
        const std::string_view unparsed(static_cast<const char*>(buf.data().data()), buf.size());
        for (;;) {
          const std::size_t n = parser->put(buf.data(), ec);
          buf.consume(n);
          if (ec || parser->is_done() || n == 0 || buf.size() == 0) break;
        }
        if (ec == http::error::need_more) ec = {};
        if (ec) return RefuseParse(ec, unparsed);
        if (parser->is_header_done() && !head_checked) {
          head_checked = true;
          httplib::Headers headers;
          for (const auto& f : parser->get()) headers.emplace(Str(f.name_string()), Str(f.value()));
          if (auto bad = CheckFraming(headers)) return Refuse(400, *bad, "bad_request");
          if (!parser->is_done() &&
              IEquals(Str(parser->get()[http::field::expect]), "100-continue")) {
            iovec iov = Iov("HTTP/1.1 100 Continue\r\n\r\n");
            SendAll(fd, &iov, 1, Clock::now());  // best effort; the client goes on after a wait
          }
        }
        if (parser->is_done()) return Pumped::kComplete;
      }
      if (peer_eof) return Pumped::kClosed;
      auto space = buf.prepare(kReadChunk);
      const ssize_t n = ::recv(fd, space.data(), space.size(), MSG_DONTWAIT);
      if (n > 0) {
        buf.commit(static_cast<std::size_t>(n));
        last_progress = Clock::now();
        if (!started) {
          started = true;
          head_deadline = last_progress + std::chrono::milliseconds(owner.options.read_timeout_ms);
        }
        continue;
      }
      if (n == 0) {
        peer_eof = true;
        return Pumped::kClosed;  // a complete request was returned above
      }
      if (errno == EINTR) continue;
      if (errno == EAGAIN || errno == EWOULDBLOCK) return Pumped::kNeedMore;
      return Pumped::kClosed;
    }
  }

  // I/O thread: waits for bytes or the deadline.
  void Arm() {
    if (owner.stopping) return Close();
    const std::uint64_t g = ++gen;
    timer.expires_at(Deadline());
    timer.async_wait([self = shared_from_this(), g](const boost::system::error_code& ec) {
      if (ec || g != self->gen) return;
      ++self->gen;
      boost::system::error_code ignored;
      self->sock.cancel(ignored);
      self->OnTimeout();
    });
    sock.async_wait(tcp::socket::wait_read,
                    [self = shared_from_this(), g](const boost::system::error_code& ec) {
                      if (g != self->gen) return;
                      ++self->gen;
                      self->timer.cancel();
                      if (ec) return self->Close();
                      self->OnReadable();
                    });
  }

  void OnReadable() {
    switch (Pump()) {
      case Pumped::kNeedMore:
        return Arm();
      case Pumped::kComplete:
        return owner.pool->Submit([self = shared_from_this()] { self->Serve(); });
      case Pumped::kRefused:
        return owner.pool->Submit([self = shared_from_this()] { self->AnswerRefused(); });
      case Pumped::kClosed:
        return Close();
    }
  }

  void OnTimeout() {
    if (!started) return Close();  // idle keep-alive, or a connection that never spoke
    Refuse(408,
           Format("the request did not arrive in time (its head within {} ms, its body without a "
                  "pause that long)",
                  owner.options.read_timeout_ms),
           "request_timeout");
    owner.pool->Submit([self = shared_from_this()] { self->AnswerRefused(); });
  }

  httplib::Request ToRequest() {
    httplib::Request req;
    auto& m = parser->get();
    req.method = Str(m.method_string());
    req.target = Str(m.target());
    const std::size_t q = req.target.find('?');
    req.path = httplib::detail::decode_url(req.target.substr(0, q), false);
    if (q != std::string::npos)
      httplib::detail::parse_query_text(req.target.substr(q + 1), req.params);
    req.version = m.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
    for (const auto& f : m) req.headers.emplace(Str(f.name_string()), Str(f.value()));
    req.headers.erase("Accept-Encoding");
    req.headers.erase("Range");
    req.body = std::move(m.body());
    req.remote_addr = remote_addr;
    req.remote_port = remote_port;
    req.local_addr = local_addr;
    req.local_port = local_port;
    return req;
  }

  // Worker: answers the complete request, then serves the requests that
  // follow on the connection while they come quickly.
  void Serve() {
    for (;;) {
      const bool keep = Answer();
      if (!keep || owner.stopping) return Close();
      NewRequest(Clock::now() + std::chrono::seconds(owner.options.keep_alive_seconds));
      const auto linger_until = Clock::now() + kLinger;
      for (;;) {
        const Pumped p = Pump();
        if (p == Pumped::kComplete) break;
        if (p == Pumped::kClosed) return Close();
        if (p == Pumped::kRefused) return AnswerRefused();
        if (owner.stopping || !WaitFd(fd, POLLIN, linger_until)) {
          asio::post(owner.ioc, [self = shared_from_this()] { self->Arm(); });
          return;
        }
      }
    }
  }

  // Worker: runs the handler and writes its answer; true when the
  // connection stays open for another request.
  bool Answer() {
    httplib::Request req = ToRequest();
    bool keep = parser->get().keep_alive();
    fin_before_answer = peer_eof || FinArrived(fd);
    const bool head_only = req.method == "HEAD";
    static const std::unordered_set<std::string> kServed = {"GET",   "HEAD",   "POST",   "PUT",
                                                            "PATCH", "DELETE", "OPTIONS"};
    httplib::Response res;
    std::optional<httplib::Response> failed;
    if (!kServed.contains(req.method)) {
      AnswerJson(res, 405,
                 llmconform::wire::MakeErrorJson(
                     Format("method {} is not served", req.method.substr(0, 32)),
                     "invalid_request_error", nullptr, "method_not_allowed"));
    } else {
      std::string what;
      try {
        owner.handler(req, res);
      } catch (const std::exception& e) {
        what = e.what();
      } catch (...) {
        what = "unknown error";
      }
      if (!what.empty()) {
        failed.emplace();
        AnswerJson(*failed, 500,
                   llmconform::wire::MakeErrorJson(Format("mockllm internal error: {}", what),
                                                   "server_error"));
      }
    }
    httplib::Response& out = failed ? *failed : res;
    if (out.status < 0) out.status = 200;
    if (IEquals(out.get_header_value("Connection"), "close")) keep = false;
    const bool ok = Write(out, head_only, keep, req.version == "HTTP/1.0");
    res.content_provider_success_ = ok && !failed;
    return ok && keep;
  }

  // Worker: writes `res`. Its head goes first, at once (a timed stream's
  // client sees the answer start as the recording did); then the body, or
  // what the provider writes, each piece in one call.
  bool Write(httplib::Response& res, bool head_only, bool keep, bool http10) {
    std::string head = Format("HTTP/1.1 {} {}\r\n", res.status, Reason(res.status));
    bool has_length = false, has_encoding = false, has_connection = false;
    for (const auto& [name, value] : res.headers) {
      if (!SafeHeader(name, value)) continue;
      has_length = has_length || IEquals(name, "Content-Length");
      has_encoding = has_encoding || IEquals(name, "Transfer-Encoding");
      has_connection = has_connection || IEquals(name, "Connection");
      head.append(name).append(": ").append(value).append("\r\n");
    }
    const bool bodiless = res.status < 200 || res.status == 204 || res.status == 304;
    const bool provided = static_cast<bool>(res.content_provider_);
    const bool chunked = provided && res.is_chunked_content_provider_;
    if (!bodiless) {
      if (chunked) {
        if (!has_encoding) head += "Transfer-Encoding: chunked\r\n";
      } else if (!has_length) {
        head += Format("Content-Length: {}\r\n", provided ? res.content_length_ : res.body.size());
      }
    }
    if (!has_connection) {
      if (!keep)
        head += "Connection: close\r\n";
      else if (http10)
        head += "Connection: keep-alive\r\n";
    }
    head += "\r\n";
    const auto deadline = [this] {
      return Clock::now() + std::chrono::milliseconds(owner.options.write_timeout_ms);
    };
    if (head_only || bodiless || !provided) {
      iovec iov[2] = {Iov(head), Iov(head_only || bodiless ? std::string_view() : res.body)};
      return SendAll(fd, iov, 2, deadline());
    }
    {
      iovec iov = Iov(head);
      if (!SendAll(fd, &iov, 1, deadline())) return false;
    }
    httplib::DataSink sink;
    bool write_ok = true, done = false;
    std::size_t offset = 0;
    sink.is_writable = [&] { return write_ok; };
    if (chunked) {
      sink.write = [&](const char* data, std::size_t n) {
        if (!write_ok || ClientLeft()) return write_ok = false;
        if (n == 0) return true;
        char size_line[24];
        const int k = std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
        iovec iov[3] = {
            {size_line, static_cast<std::size_t>(k)}, {const_cast<char*>(data), n}, Iov("\r\n")};
        write_ok = SendAll(fd, iov, 3, deadline());
        offset += n;
        return write_ok;
      };
      sink.done = [&] {
        if (done) return;
        done = true;
        iovec iov = Iov("0\r\n\r\n");
        write_ok = write_ok && SendAll(fd, &iov, 1, deadline());
      };
      while (!done) {
        if (owner.stopping || !res.content_provider_(offset, 0, sink) || !write_ok) return false;
      }
      return write_ok;
    }
    const std::size_t length = res.content_length_;
    sink.write = [&](const char* data, std::size_t n) {
      if (!write_ok || ClientLeft()) return write_ok = false;
      n = std::min(n, length - offset);  // never past the announced length
      iovec iov = {const_cast<char*>(data), n};
      write_ok = SendAll(fd, &iov, 1, deadline());
      offset += n;
      return write_ok;
    };
    sink.done = [&] { done = true; };
    while (offset < length) {
      const std::size_t before = offset;
      if (owner.stopping || !res.content_provider_(offset, length - offset, sink) || !write_ok ||
          offset == before)
        return false;
    }
    return true;
  }

  bool ClientLeft() const { return !fin_before_answer && FinArrived(fd); }

  // Worker: answers a refused request in OpenAI's error form and closes.
  void AnswerRefused() {
    httplib::Request req = std::move(refused_head);
    if (parser->is_header_done()) {
      auto& m = parser->get();
      req.method = Str(m.method_string());
      req.target = Str(m.target());
      req.path = req.target.substr(0, req.target.find('?'));
      for (const auto& f : m) req.headers.emplace(Str(f.name_string()), Str(f.value()));
      req.remote_addr = remote_addr;
      req.remote_port = remote_port;
    }
    if (owner.on_refused && !req.method.empty())
      owner.on_refused(req, refused_status, refused_message);
    httplib::Response res;
    AnswerJson(res, refused_status,
               llmconform::wire::MakeErrorJson(refused_message, "invalid_request_error", nullptr,
                                               refused_code));
    Write(res, false, false, false);
    LingeringClose();
  }

  // Closes after the answer has left: stops sending, then reads and drops
  // what the client still sends for a moment, so closing with unread bytes
  // does not reset the connection before the client reads the answer.
  void LingeringClose() {
    ::shutdown(fd, SHUT_WR);
    const auto until = Clock::now() + std::chrono::milliseconds(500);
    char sink[16384];
    std::size_t dropped = 0;
    while (dropped < 64 * 1024 * 1024 && !owner.stopping) {
      const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n > 0) {
        dropped += static_cast<std::size_t>(n);
        continue;
      }
      if (n == 0 || (errno != EAGAIN && errno != EWOULDBLOCK && errno != EINTR)) break;
      if (!WaitFd(fd, POLLIN, until)) break;
    }
    Close();
  }

  void Close() {
    std::lock_guard lock(owner.mu);
    if (closed) return;
    closed = true;
    owner.open.erase(this);
    boost::system::error_code ignored;
    sock.close(ignored);
  }
};

void HttpListener::Impl::Accept() {
  acceptor.async_accept([this](const boost::system::error_code& ec, tcp::socket sock) {
    if (stopping || ec == asio::error::operation_aborted) return;
    if (ec) {
      // Out of descriptors, most likely: try again shortly rather than spin.
      accept_backoff.expires_after(std::chrono::milliseconds(10));
      accept_backoff.async_wait([this](const boost::system::error_code& e) {
        if (!e && !stopping) Accept();
      });
      return;
    }
    OnAccepted(std::move(sock));
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
    // Over capacity: answer 503 at once rather than leave it waiting.
    const int fd = sock.native_handle();
    char drop[4096];
    while (::recv(fd, drop, sizeof drop, MSG_DONTWAIT) > 0) {
    }
    httplib::Response res;
    AnswerJson(res, 503,
               llmconform::wire::MakeErrorJson(
                   Format("mockllm has {} connections open, its limit (--max-connections); try "
                          "again later",
                          options.max_connections),
                   "server_error", nullptr, "server_busy"));
    const std::string answer = Format(
        "HTTP/1.1 503 Service Unavailable\r\nContent-Type: application/json\r\nContent-Length: "
        "{}\r\nRetry-After: 1\r\nConnection: close\r\n\r\n{}",
        res.body.size(), res.body);
    iovec iov = Iov(answer);
    SendAll(fd, &iov, 1, Clock::now());
    ::shutdown(fd, SHUT_WR);
    return;  // closed with `sock`
  }
  auto conn = std::make_shared<Conn>(*this, std::move(sock));
  open.insert(conn.get());
  lock.unlock();
  conn->Arm();
}

HttpListener::HttpListener() : impl_(std::make_unique<Impl>()) {}
HttpListener::~HttpListener() { Stop(); }

std::optional<std::string> CheckFraming(httplib::Headers& headers) {
  const auto lengths = headers.equal_range("Content-Length");
  const bool chunked = headers.find("Transfer-Encoding") != headers.end();
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

void AnswerJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(body.dump(-1, ' ', false, nlohmann::json::error_handler_t::replace),
                  "application/json");
}

std::vector<std::pair<std::string, std::string>> RequestHeaders(const httplib::Headers& headers) {
  std::vector<std::pair<std::string, std::string>> out;
  for (const auto& [name, value] : headers) {
    if (name == "REMOTE_ADDR" || name == "REMOTE_PORT" || name == "LOCAL_ADDR" ||
        name == "LOCAL_PORT")
      continue;
    std::string lower(name);
    for (char& c : lower) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
    out.emplace_back(std::move(lower), value);
  }
  return out;
}

std::expected<int, llmconform::Error> HttpListener::Start(const ListenOptions& options,
                                                          Handler handler, RefusedHook on_refused) {
  Impl& m = *impl_;
  if (m.started) return std::unexpected(llmconform::Error{"the listener was started already"});
  m.options = options;
  m.handler = std::move(handler);
  m.on_refused = std::move(on_refused);
  const auto fail = [&](const std::string& why) {
    return std::unexpected(
        llmconform::Error{Format("cannot listen on {}:{}: {}", options.host, options.port, why)});
  };
  boost::system::error_code ec;
  tcp::resolver resolver(m.ioc);
  const auto endpoints = resolver.resolve(options.host, std::to_string(options.port),
                                          tcp::resolver::numeric_service, ec);
  if (ec) return fail(ec.message());
  for (const auto& entry : endpoints) {
    boost::system::error_code e;
    m.acceptor.open(entry.endpoint().protocol(), e);
    if (!e) m.acceptor.set_option(asio::socket_base::reuse_address(true), e);
    if (!e) m.acceptor.bind(entry.endpoint(), e);
    if (!e) m.acceptor.listen(asio::socket_base::max_listen_connections, e);
    if (!e) break;
    ec = e;
    boost::system::error_code ignored;
    m.acceptor.close(ignored);
  }
  if (!m.acceptor.is_open()) return fail(ec ? ec.message() : "no address");
  const int port = m.acceptor.local_endpoint().port();
  m.pool =
      std::make_unique<WorkerPool>(static_cast<std::size_t>(std::max(1, options.threads)),
                                   static_cast<std::size_t>(std::max(1, options.max_connections)));
  m.guard.emplace(m.ioc.get_executor());
  m.Accept();
  m.io_thread = std::thread([&m] { m.ioc.run(); });
  m.started = true;
  return port;
}

void HttpListener::Stop() {
  Impl& m = *impl_;
  {
    std::lock_guard lock(m.mu);
    if (!m.started || m.stopping) return;
    m.stopping = true;
    // Wakes every wait on these connections: the I/O thread's (readable at
    // end of stream) and a worker's (its poll and writes fail).
    for (Impl::Conn* c : m.open) ::shutdown(c->fd, SHUT_RDWR);
  }
  m.pool->Shutdown();
  asio::post(m.ioc, [&m] {
    boost::system::error_code ignored;
    m.acceptor.close(ignored);
    m.accept_backoff.cancel();
    std::lock_guard lock(m.mu);
    for (Impl::Conn* c : m.open) {
      c->timer.cancel();
      c->sock.cancel(ignored);
    }
  });
  m.guard.reset();
  m.io_thread.join();
}

}  // namespace llmconform::mockllm
