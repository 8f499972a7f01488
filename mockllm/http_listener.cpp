#include "mockllm/http_listener.h"

#include <netinet/in.h>
#include <poll.h>
#include <sys/resource.h>
#include <sys/socket.h>
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
#include <boost/beast/http/string_body.hpp>
#include <cerrno>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <unordered_set>

#include "base/format.h"
#include "base/json_read.h"
#include "mockllm/http_io.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using http_io::Clock;
using http_io::ConnectionFailed;
using http_io::IEquals;
using http_io::Iov;
using http_io::SendAll;
using llmconform::Format;

constexpr std::size_t kMaxHeadBytes = 64 * 1024;
constexpr std::size_t kReadChunk = 64 * 1024;
constexpr auto kDrainTime = std::chrono::milliseconds(500);
constexpr std::size_t kMaxDrainBytes = 64 * 1024 * 1024;
constexpr std::size_t kDrainTurnBytes = 256 * 1024;

std::string Str(boost::beast::string_view s) { return std::string(s.data(), s.size()); }

bool Bodiless(const httplib::Response& res, bool head_only) {
  return head_only || res.status < 200 || res.status == 204 || res.status == 304;
}

// How the head frames a body: chunked, or `size` bytes (Content-Length).
struct Framing {
  bool chunked = false;
  std::size_t size = 0;
};

// The framing of `res`'s content provider, or of a plain body of `body_size` bytes.
Framing FramingOf(const httplib::Response& res, std::size_t body_size) {
  if (res.content_provider_) return {res.is_chunked_content_provider_, res.content_length_};
  return {false, body_size};
}

// The response head: status line, the handler's headers (unsafe ones left
// out), and the framing and connection headers it did not set (a handler
// that sets Transfer-Encoding itself has framed its body).
std::string ResponseHead(const httplib::Response& res, Framing body, bool keep, bool http10) {
  std::string head = Format("HTTP/1.1 {} {}\r\n", res.status, http_io::Reason(res.status));
  bool has_length = false, has_encoding = false, has_connection = false;
  for (const auto& [name, value] : res.headers) {
    if (!http_io::SafeHeader(name, value)) continue;
    has_length = has_length || IEquals(name, "Content-Length");
    has_encoding = has_encoding || IEquals(name, "Transfer-Encoding");
    has_connection = has_connection || IEquals(name, "Connection");
    head.append(name).append(": ").append(value).append("\r\n");
  }
  if (!Bodiless(res, false) && !has_encoding && !has_length) {
    if (body.chunked) {
      // HTTP/1.0 has no chunked coding: the body ends with the connection.
      if (!http10) head += "Transfer-Encoding: chunked\r\n";
    } else {
      head += Format("Content-Length: {}\r\n", body.size);
    }
  }
  if (!has_connection) {
    if (!keep) {
      head += "Connection: close\r\n";
    } else if (http10) {
      head += "Connection: keep-alive\r\n";
    }
  }
  head += "\r\n";
  return head;
}

using Message = http::request<http::string_body>;

// A body lent by the handler running on this thread (LendBody) or paced
// (PaceBody), or the rest of its work handed to a worker (FinishOnWorker).
struct Lent {
  const httplib::Response* res = nullptr;  // the response the running handler fills
  std::shared_ptr<const void> owner;
  std::optional<std::string_view> bytes;           // set by LendBody
  std::shared_ptr<PacedBody> paced;                // set by PaceBody…
  std::optional<std::size_t> paced_length;         // …with its length (nullopt: chunked)
  std::function<void(httplib::Response&)> finish;  // set by FinishOnWorker
};
thread_local Lent current_lend;

httplib::Headers HeadersOf(const Message& m) {
  httplib::Headers headers;
  for (const auto& f : m) headers.emplace(Str(f.name_string()), Str(f.value()));
  return headers;
}

}  // namespace

struct HttpListener::Impl {
  struct Conn;
  enum class Pumped { kComplete, kNeedMore, kClosed, kRefused };

  // Declared first, destroyed last: a connection destroyed with the pool or
  // an I/O context still unregisters itself.
  std::mutex mu;                   // guards `open` and the move to stopping
  std::unordered_set<Conn*> open;  // connections not yet closed
  // Bytes of request bodies the connections hold while their requests
  // arrive (a body announced by Content-Length counts whole from its head:
  // the parser reserves it), at most options.max_buffered_body_bytes.
  std::atomic<std::size_t> bodies_held = 0;
  ListenOptions options;
  Handler handler;
  RefusedHook on_refused;
  // One context per I/O thread; the acceptor lives on the first, and accepted
  // connections are dealt to the contexts in turn.
  std::vector<std::unique_ptr<asio::io_context>> contexts;
  std::vector<asio::executor_work_guard<asio::io_context::executor_type>> guards;
  std::unique_ptr<tcp::acceptor> acceptor;
  std::unique_ptr<asio::steady_timer> accept_backoff;
  std::vector<std::thread> io_threads;
  std::size_t next_context = 0;
  std::unique_ptr<http_io::WorkerPool> pool;
  std::atomic<bool> stopping = false;
  bool started = false;
  std::atomic<std::uint64_t> refused_busy = 0;  // connections answered 503 for max_connections

  void Accept();
  void OnAccepted(tcp::socket sock);
  void RefuseBusy(tcp::socket& sock);
};

// One connection. Owned by shared pointers held by whatever waits on it: an
// I/O-thread wait (bytes, room to write, or a deadline) or a worker job. At
// any time exactly one of those uses it, so it needs no lock of its own.
struct HttpListener::Impl::Conn : std::enable_shared_from_this<Conn> {
  Conn(Impl& owner_in, tcp::socket s)
      : owner(owner_in),
        ioc(static_cast<asio::io_context&>(s.get_executor().context())),
        sock(std::move(s)),
        timer(ioc),
        fd(sock.native_handle()) {
    boost::system::error_code ec;
    const auto remote = sock.remote_endpoint(ec);
    if (!ec) remote_addr = remote.address().to_string(), remote_port = remote.port();
    const auto local = sock.local_endpoint(ec);
    if (!ec) local_addr = local.address().to_string(), local_port = local.port();
    NewRequest(Clock::now() + std::chrono::milliseconds(owner.options.read_timeout_ms));
  }
  ~Conn() { Close(); }

  Impl& owner;
  asio::io_context& ioc;
  tcp::socket sock;
  asio::steady_timer timer;
  const int fd;
  std::string remote_addr, local_addr;
  int remote_port = -1, local_port = -1;
  boost::beast::flat_buffer buf;
  std::optional<http::request_parser<http::string_body>> parser;
  bool head_checked = false;     // the head's framing was judged
  httplib::Headers head_fields;  // the head's fields, once judged (moved out by Head)
  bool head_keep_alive = false;  // what the head says of keep-alive, once judged
  std::size_t head_bytes = 0;    // the bytes of the head the parser has taken
  bool started = false;          // a byte of the current request arrived
  // The client half-closed (or closed): no bytes follow the buffered. Not
  // its leaving: the answer is written until a write fails
  // (docs/mockllm-server.md, "Half-close").
  bool peer_eof = false;
  bool closed = false;
  Clock::time_point idle_deadline, head_deadline, last_progress;
  std::uint64_t gen = 0;  // I/O thread only: which wait is current
  // An answer being written from the I/O thread, and what follows it.
  std::string out;                        // the head (or a whole refusal)
  std::string out_body;                   // the body, moved from the handler's answer…
  std::shared_ptr<const void> out_owner;  // …or the owner of the bytes it lent
  std::string_view out_lent;              // the body written: out_body's or the lent bytes
  // The handler's response being written, held so its releaser runs once
  // the answer has left (told true) or the connection ended first (false).
  std::shared_ptr<httplib::Response> out_res;
  // A paced answer being written (PaceBody): its body, its head until it
  // leaves, its framing and the body bytes written.
  std::shared_ptr<PacedBody> paced;
  std::string paced_head;
  bool paced_chunked = false;               // each piece one chunk (HTTP/1.1)
  std::optional<std::size_t> paced_length;  // a sized body's length
  std::size_t paced_written = 0;
  bool paced_ended = false;    // kEnd: what is being written finishes the answer
  bool reset_watched = false;  // a wait for the socket's error is pending (WatchReset)
  int pace_depth = 0;          // steps taken inline, one inside the other (Flush)
  std::size_t out_at = 0;
  bool keep_after = false;  // read the next request once `out` is written
  bool refused = false;     // the answer refuses the request: close after it
  bool draining = false;    // refused and answered: dropping what still comes
  std::size_t drained = 0;  // bytes dropped while draining
  Clock::time_point drain_deadline;
  // Set when Pump returns kRefused.
  int refused_status = 0;
  std::string refused_message;
  std::string refused_code;
  httplib::Request refused_head;  // what was read of a head Beast refused
  std::size_t body_held = 0;      // this request's share of owner.bodies_held

  // Counts `need` bytes of this request's body into the server's budget;
  // false (nothing counted) when they do not fit.
  bool HoldBody(std::size_t need) {
    if (need <= body_held) return true;
    const std::size_t more = need - body_held;
    std::size_t now = owner.bodies_held.load();
    do {
      const std::size_t cap = owner.options.max_buffered_body_bytes;
      if (now > cap || more > cap - now) return false;
    } while (!owner.bodies_held.compare_exchange_weak(now, now + more));
    body_held = need;
    return true;
  }
  // The request's body has left the connection (to the handler), or never
  // will arrive: its share of the budget is given back.
  void LetBodyGo() {
    owner.bodies_held -= body_held;
    body_held = 0;
  }
  // What the request's body holds, or will once announced: refused 503 when
  // the server's budget for bodies cannot take it.
  std::optional<Pumped> BudgetBody() {
    // A length past max_body_bytes is the parser's to refuse (413).
    const std::size_t announced =
        std::min<std::uint64_t>(parser->content_length().value_or(0), owner.options.max_body_bytes);
    const std::size_t need = std::max(announced, parser->get().body().capacity());
    if (HoldBody(need)) return std::nullopt;
    return Refuse(503,
                  Format("the server holds as many request bodies as it may ({} bytes in all); "
                         "try again",
                         owner.options.max_buffered_body_bytes),
                  "server_busy");
  }

  void NewRequest(Clock::time_point idle_until) {
    LetBodyGo();
    parser.emplace();
    parser->header_limit(static_cast<std::uint32_t>(kMaxHeadBytes));
    parser->body_limit(owner.options.max_body_bytes);
    // Not eager until the head is read (Pump): Beast then stops at its end,
    // before a chunked body's trailer adds to its fields.
    parser->eager(false);
    head_checked = false;
    head_bytes = 0;
    head_fields.clear();
    started = false;
    idle_deadline = idle_until;
  }

  Clock::time_point ReadDeadline() const {
    if (draining) return drain_deadline;
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

  Pumped RefuseHeadTooLarge() {
    return Refuse(431,
                  Format("the request head is larger than the limit of {} bytes", kMaxHeadBytes),
                  "request_header_fields_too_large");
  }

  // Keeps what was read of a head that is refused before it is complete (for
  // the journal, and to say what was wrong with its framing). `unparsed`: the
  // bytes of this read; `from_start`: they begin with the head. Otherwise the
  // parser took the start line and earlier fields in earlier reads, and the
  // fields of this read are added as they are written.
  void KeepRefusedHead(std::string_view unparsed, bool from_start) {
    unparsed = unparsed.substr(0, kMaxHeadBytes);
    if (from_start || parser->get().method_string().empty()) {
      refused_head = http_io::RawHead(unparsed);
      return;
    }
    refused_head = Head();
    const httplib::Request rest = http_io::RawHead("GET / HTTP/1.1\r\n" + std::string(unparsed));
    for (const auto& [name, value] : rest.headers) {
      auto [lo, hi] = refused_head.headers.equal_range(name);
      if (std::none_of(lo, hi, [&](const auto& f) { return f.second == value; }))
        refused_head.headers.emplace(name, value);
    }
  }

  // `unparsed`: the bytes the failed parse was given (the head, for a head
  // Beast refused).
  Pumped RefuseParse(const boost::system::error_code& ec, std::string_view unparsed,
                     bool from_start) {
    if (ec == http::error::body_limit) {
      return Refuse(413,
                    Format("the request body is larger than the limit of {} bytes",
                           owner.options.max_body_bytes),
                    "request_too_large");
    }
    if (!parser->is_header_done()) KeepRefusedHead(unparsed, from_start);
    if (ec == http::error::header_limit) return RefuseHeadTooLarge();
    if (!parser->is_header_done()) {
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
        const bool from_start = head_bytes == 0;
        for (;;) {
          const bool in_head = !parser->is_header_done();
          const std::size_t n = parser->put(buf.data(), ec);
          buf.consume(n);
          if (in_head) head_bytes += n;
          // Stop at the end of the head: its fields are read before a
          // chunked body's trailer, which Beast adds to them, is parsed.
          if (ec || parser->is_done() || n == 0 || buf.size() == 0 ||
              (!head_checked && parser->is_header_done())) {
            break;
          }
        }
        if (ec == http::error::need_more) ec = {};
        if (ec) return RefuseParse(ec, unparsed, from_start);
        // Beast bounds a head's unparsed rest (header_limit), not the fields
        // it has already taken: the whole head is bounded here.
        if (head_bytes > kMaxHeadBytes) {
          if (!parser->is_header_done()) KeepRefusedHead({}, false);
          return RefuseHeadTooLarge();
        }
        // What the parser leaves unconsumed is an unfinished line: the head
        // (bounded by header_limit) or, in a chunked body, a chunk-size line
        // or trailer, which Beast does not bound.
        if (buf.size() > kMaxHeadBytes + kReadChunk) {
          return Refuse(400, Format("a line of the request is longer than {} bytes", kMaxHeadBytes),
                        "bad_request");
        }
        if (parser->is_header_done() && !head_checked) {
          head_checked = true;
          parser->eager(true);  // the body, as far as its bytes have come, in one call
          head_fields = HeadersOf(parser->get());
          head_keep_alive = parser->get().keep_alive();
          if (auto bad = CheckFraming(head_fields)) return Refuse(400, *bad, "bad_request");
          // Before the parser reserves an announced body, and before 100 Continue.
          if (auto busy = BudgetBody()) return *busy;
          // Sent only while none of the body has come (RFC 9110 §10.1.1).
          if (!parser->is_done() && buf.size() == 0 &&
              IEquals(Str(parser->get()[http::field::expect]), "100-continue")) {
            iovec iov = Iov("HTTP/1.1 100 Continue\r\n\r\n");
            SendAll(fd, &iov, 1, {});  // best effort; the client goes on after a wait
          }
          if (buf.size() > 0 && !parser->is_done()) continue;  // the body's bytes came with it
        }
        if (head_checked) {
          if (auto busy = BudgetBody()) return *busy;  // a chunked body grows as it comes
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

  // --- I/O thread -------------------------------------------------------

  // Waits for the socket (readable, or writable when `write`) or `deadline`.
  void Wait(bool write, Clock::time_point deadline) {
    if (owner.stopping) return Close();
    const std::uint64_t g = ++gen;
    timer.expires_at(deadline);
    timer.async_wait([self = shared_from_this(), g, write](const boost::system::error_code& ec) {
      if (ec || g != self->gen) return;
      ++self->gen;
      boost::system::error_code ignored;
      self->sock.cancel(ignored);
      if (write || self->draining) return self->Close();
      self->OnReadTimeout();
    });
    sock.async_wait(write ? tcp::socket::wait_write : tcp::socket::wait_read,
                    [self = shared_from_this(), g, write](const boost::system::error_code& ec) {
                      if (g != self->gen) return;
                      ++self->gen;
                      self->timer.cancel();
                      if (ec) return self->Close();
                      if (write) return self->Flush();
                      self->OnReadable();
                    });
  }

  // Only after a read that found nothing, in the same handler (see OnAccepted).
  void WaitRead() { Wait(false, ReadDeadline()); }

  void OnReadable() {
    if (draining) return DrainSome();
    switch (Pump()) {
      case Pumped::kNeedMore:
        return WaitRead();
      case Pumped::kComplete:
        return Dispatch();
      case Pumped::kRefused:
        return AnswerRefused();
      case Pumped::kClosed:
        return Close();
    }
  }

  void OnReadTimeout() {
    if (!started) return Close();  // idle keep-alive, or a connection that never spoke
    Refuse(408,
           Format("the request did not arrive in time (its head within {} ms, its body without a "
                  "pause that long)",
                  owner.options.read_timeout_ms),
           "request_timeout");
    AnswerRefused();
  }

  // A complete request: the handler runs here, unless it may block; an
  // answer its handler leaves to a content provider is written by a worker
  // (the provider may wait).
  // A handler that hands the rest of its work to a worker (FinishOnWorker)
  // has it finished there, and its answer written from there.
  void Dispatch() {
    if (owner.options.handler_may_block) {
      return owner.pool->Submit([self = shared_from_this()] {
        Answered a = self->Answer();
        while (a.finish) self->Finish(a);
        if (a.Paced()) return asio::post(self->ioc, [self, a] { self->StartPaced(a); });
        const bool ok = a.Provided() ? self->WriteProvided(a) : self->SendPlain(a);
        asio::post(self->ioc, [self, keep = ok && a.keep] { self->AfterAnswer(keep); });
      });
    }
    Answered a = Answer();
    if (a.finish || (a.Provided() && !a.paced)) {
      return owner.pool->Submit([self = shared_from_this(), a]() mutable {
        while (a.finish) self->Finish(a);
        if (a.Paced()) return asio::post(self->ioc, [self, a] { self->StartPaced(a); });
        const bool ok = a.Provided() ? self->WriteProvided(a) : self->SendPlain(a);
        asio::post(self->ioc, [self, keep = ok && a.keep] { self->AfterAnswer(keep); });
      });
    }
    if (a.Paced()) return StartPaced(a);
    out = ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10);
    if (!Bodiless(*a.answer, a.head_only)) {
      if (a.lent) {
        out_owner = a.lent_owner;
        out_lent = *a.lent;
      } else {
        out_body = std::move(a.answer->body);
        out_lent = out_body;
      }
    }
    if (a.answer == a.res) out_res = a.res;
    out_at = 0;
    keep_after = a.keep;
    Flush();
  }

  // Writes `out` then `out_lent` from out_at without blocking; waits for
  // room when the socket is full, then goes on with the connection.
  void Flush() {
    while (out_at < out.size() + out_lent.size()) {
      iovec iov[2];
      int k = 0;
      if (out_at < out.size()) iov[k++] = Iov(std::string_view(out).substr(out_at));
      const std::size_t in_body = out_at > out.size() ? out_at - out.size() : 0;
      iov[k++] = Iov(out_lent.substr(in_body));
      msghdr mh{};
      mh.msg_iov = iov;
      mh.msg_iovlen = static_cast<std::size_t>(k);
      const ssize_t n = ::sendmsg(fd, &mh, MSG_NOSIGNAL | MSG_DONTWAIT);
      if (n > 0) {
        out_at += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) {
        return Wait(true, Clock::now() + std::chrono::milliseconds(owner.options.write_timeout_ms));
      }
      return Close();
    }
    out.clear();
    std::string().swap(out_body);
    out_lent = {};
    out_owner.reset();
    out_at = 0;
    if (paced && !paced_ended) {
      // The next step at once; past a few steps due at once, posted, so they
      // neither recurse deeply nor hold up the thread's other connections.
      if (pace_depth >= 8)
        return asio::post(ioc, [self = shared_from_this()] { self->PaceNext(); });
      ++pace_depth;
      PaceNext();
      --pace_depth;
      return;
    }
    paced.reset();
    if (out_res) {
      out_res->content_provider_success_ = true;
      out_res.reset();
    }
    if (refused) return StartDrain();
    AfterAnswer(keep_after);
  }

  // After an answer: the next request, or the end of the connection. Posted,
  // so pipelined requests do not recurse.
  void AfterAnswer(bool keep) {
    if (owner.stopping) return Close();
    // A lingering close (RFC 9112 §9.6): the answer's end is sent first, and
    // what the client still sends is read and dropped for a moment, so
    // unread bytes do not turn the close into a reset that could destroy the
    // answer before the client reads it (a close-delimited HTTP/1.0 stream
    // most of all).
    if (!keep) return StartDrain();
    NewRequest(Clock::now() + std::chrono::seconds(owner.options.keep_alive_seconds));
    asio::post(ioc, [self = shared_from_this()] { self->OnReadable(); });
  }

  // Answers a refused request in OpenAI's error form, then closes.
  void AnswerRefused() {
    httplib::Request req = parser->is_header_done() ? Head() : std::move(refused_head);
    req.remote_addr = remote_addr;
    req.remote_port = remote_port;
    if (owner.on_refused && !req.method.empty())
      owner.on_refused(req, refused_status, refused_message);
    httplib::Response res;
    AnswerJson(res, refused_status,
               llmconform::wire::MakeErrorJson(refused_message, "invalid_request_error", nullptr,
                                               refused_code));
    if (refused_status == 503) res.set_header("Retry-After", "1");
    out = ResponseHead(res, {.size = res.body.size()}, false, false) + res.body;
    out_at = 0;
    refused = true;
    Flush();
  }

  // Closes after a refusal or a last answer has left: stops sending, then
  // reads and drops what the client still sends for a moment (kDrainTime, at
  // most kMaxDrainBytes), so closing with unread bytes does not reset the
  // connection before the client reads the answer.
  void StartDrain() {
    ::shutdown(fd, SHUT_WR);
    draining = true;
    drain_deadline = Clock::now() + kDrainTime;
    DrainSome();
  }

  void DrainSome() {
    char sink[16384];
    // At most kDrainTurnBytes a turn, so a client that keeps sending does
    // not hold the I/O thread; kMaxDrainBytes in all.
    for (std::size_t turn = 0; drained < kMaxDrainBytes;) {
      if (turn >= kDrainTurnBytes) {
        asio::post(ioc, [self = shared_from_this()] { self->DrainSome(); });
        return;
      }
      const ssize_t n = ::recv(fd, sink, sizeof sink, MSG_DONTWAIT);
      if (n > 0) {
        drained += static_cast<std::size_t>(n);
        turn += static_cast<std::size_t>(n);
        continue;
      }
      if (n < 0 && errno == EINTR) continue;
      if (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK)) return WaitRead();
      break;
    }
    Close();
  }

  // --- handler and worker side -------------------------------------------

  // The parsed head as httplib's request: method, target, decoded path and
  // query parameters, version, headers, addresses.
  httplib::Request Head() {
    httplib::Request req;
    const Message& m = parser->get();
    req.method = Str(m.method_string());
    req.target = Str(m.target());
    const std::size_t q = req.target.find('?');
    req.path = httplib::detail::decode_url(req.target.substr(0, q), false);
    if (q != std::string::npos)
      httplib::detail::parse_query_text(req.target.substr(q + 1), req.params);
    req.version = m.version() == 10 ? "HTTP/1.0" : "HTTP/1.1";
    req.headers = head_checked ? std::move(head_fields) : HeadersOf(m);
    req.remote_addr = remote_addr;
    req.remote_port = remote_port;
    req.local_addr = local_addr;
    req.local_port = local_port;
    return req;
  }

  // A request the handler has answered. Shared, so a worker job can hold it
  // while a provider writes.
  struct Answered {
    std::shared_ptr<httplib::Request> req;
    // The handler's response: its releaser runs when the last holder lets go,
    // told by content_provider_success_ whether the answer was written whole.
    std::shared_ptr<httplib::Response> res;
    // What is written: `res`, or an answer of the listener's own (405 for a
    // method not served, 500 when the handler threw).
    std::shared_ptr<httplib::Response> answer;
    bool keep = false, http10 = false, head_only = false;
    // A body the handler lent (LendBody) instead of answer->body, and its owner.
    std::optional<std::string_view> lent;
    std::shared_ptr<const void> lent_owner;
    // A paced body (PaceBody) and its length (nullopt: chunked).
    std::shared_ptr<PacedBody> paced;
    std::optional<std::size_t> paced_length;
    // The rest of the handler's work, to run on a worker (FinishOnWorker);
    // the fields above are settled once it has run.
    std::function<void(httplib::Response&)> finish;
    bool Provided() const { return answer->content_provider_ && !Bodiless(*answer, head_only); }
    bool Paced() const { return paced && !Bodiless(*answer, head_only); }
    std::string_view Body() const { return lent ? *lent : std::string_view(answer->body); }
    Framing BodyFraming() const {
      if (paced) return {!paced_length.has_value(), paced_length.value_or(0)};
      return FramingOf(*answer, Body().size());
    }
  };

  // Runs the handler on the complete request.
  Answered Answer() {
    Answered a;
    a.req = std::make_shared<httplib::Request>(Head());
    a.req->headers.erase("Accept-Encoding");
    a.req->headers.erase("Range");
    a.req->body = std::move(parser->get().body());
    LetBodyGo();
    a.res = std::make_shared<httplib::Response>();
    current_lend = Lent{.res = a.res.get()};
    a.answer = RunHandler(*a.req, a.res);
    Settle(a);
    return a;
  }

  // Worker: runs the work the handler handed on (FinishOnWorker) on its
  // response, then settles the answer as Answer does.
  void Finish(Answered& a) {
    const auto finish = std::exchange(a.finish, nullptr);
    current_lend = Lent{.res = a.res.get()};
    a.answer = Guarded(a.res, [&] { finish(*a.res); });
    Settle(a);
  }

  // What the handler (or its finish) left: a lent body, a finish still to
  // run, how the connection goes on.
  void Settle(Answered& a) {
    Lent lend = std::exchange(current_lend, Lent{});
    if (lend.finish && a.answer == a.res) {
      a.finish = std::move(lend.finish);
      return;
    }
    if (lend.paced && a.answer == a.res) {
      a.paced = std::move(lend.paced);
      a.paced_length = lend.paced_length;
    } else if (lend.bytes && a.answer == a.res && !a.res->content_provider_) {
      a.lent = lend.bytes;
      a.lent_owner = std::move(lend.owner);
    }
    a.keep = (head_checked ? head_keep_alive : parser->get().keep_alive()) &&
             !IEquals(a.answer->get_header_value("Connection"), "close");
    a.http10 = a.req->version == "HTTP/1.0";
    // Without chunked coding, closing the connection is what ends the body.
    if (a.http10 && a.BodyFraming().chunked) a.keep = false;
    a.head_only = a.req->method == "HEAD";
  }

  // Runs the handler on `res`; returns `res`, or an answer of its own when
  // the method is not served or the handler threw.
  std::shared_ptr<httplib::Response> RunHandler(const httplib::Request& req,
                                                const std::shared_ptr<httplib::Response>& res) {
    static const std::unordered_set<std::string> kServed = {"GET",   "HEAD",   "POST",   "PUT",
                                                            "PATCH", "DELETE", "OPTIONS"};
    if (!kServed.contains(req.method)) {
      auto own = std::make_shared<httplib::Response>();
      AnswerJson(*own, 405,
                 llmconform::wire::MakeErrorJson(
                     Format("method {} is not served", req.method.substr(0, 32)),
                     "invalid_request_error", nullptr, "method_not_allowed"));
      return own;
    }
    return Guarded(res, [&] { owner.handler(req, *res); });
  }

  // Runs `fill` (the handler, or the rest of its work) on `res`; returns
  // `res`, or a 500 of its own when it threw.
  std::shared_ptr<httplib::Response> Guarded(const std::shared_ptr<httplib::Response>& res,
                                             const std::function<void()>& fill) {
    std::string what;
    try {
      fill();
    } catch (const std::exception& e) {
      what = e.what();
    } catch (...) {
      what = "unknown error";
    }
    if (what.empty()) {
      if (res->status < 0) res->status = 200;
      // A 1xx written as the answer leaves the client waiting for the real
      // one, or taking the next pipelined answer for it.
      if (res->status >= 200 && res->status <= 599) return res;
      what = Format("the answer's status {} is not a final HTTP status (200-599)", res->status);
    }
    auto own = std::make_shared<httplib::Response>();
    AnswerJson(*own, 500,
               llmconform::wire::MakeErrorJson(Format("mockllm internal error: {}", what),
                                               "server_error"));
    return own;
  }

  // Worker: writes a plain-body answer, blocking up to the write timeout.
  bool SendPlain(const Answered& a) {
    const std::string head = ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10);
    iovec iov[2] = {Iov(head),
                    Iov(Bodiless(*a.answer, a.head_only) ? std::string_view() : a.Body())};
    const bool ok = SendAll(fd, iov, 2, WriteStall());
    if (a.answer == a.res) a.res->content_provider_success_ = ok;
    return ok;
  }

  // How long a worker's write may make no progress (--write-timeout-ms).
  std::chrono::milliseconds WriteStall() const {
    return std::chrono::milliseconds(owner.options.write_timeout_ms);
  }

  // The client is gone for good: a reset, not a FIN (a half-close after the
  // request still reads the answer, however long it takes to come).
  bool ClientLeft() const { return ConnectionFailed(fd); }

  // Worker: writes an answer whose body a content provider gives. Its head
  // leaves with the provider's first write — a zero-length write sends it
  // alone, so a provider that waits before the status line (a replay's
  // delay) waits first and then starts the answer — or when the provider
  // ends. Each piece the provider writes goes in one call (a chunk: its size
  // line, bytes and CRLF gathered with the head if it has not left).
  bool WriteProvided(const Answered& a) {
    bool ok = false;
    try {
      ok = WriteProvidedOrThrow(*a.answer, a.keep, a.http10);
    } catch (...) {
      ok = false;  // a provider that throws cuts its answer where it stands
    }
    if (a.answer == a.res) a.res->content_provider_success_ = ok;
    return ok;
  }

  bool WriteProvidedOrThrow(httplib::Response& res, bool keep, bool http10) {
    const std::string head = ResponseHead(res, FramingOf(res, 0), keep, http10);
    bool head_sent = false;
    bool write_ok = true, done = false;
    std::size_t offset = 0;
    // Sends the head (if it has not left) and `iov[0..n)`.
    const auto send = [&](iovec* iov, int n) {
      iovec all[4];
      int k = 0;
      if (!head_sent) all[k++] = Iov(head);
      for (int i = 0; i < n; ++i) all[k++] = iov[i];
      head_sent = true;
      write_ok = write_ok && SendAll(fd, all, k, WriteStall());
      return write_ok;
    };
    httplib::DataSink sink;
    // False once a write failed or the connection was reset since.
    sink.is_writable = [&] { return write_ok && !ClientLeft(); };
    if (res.is_chunked_content_provider_) {
      sink.write = [&](const char* data, std::size_t n) {
        if (!write_ok || ClientLeft()) return write_ok = false;
        if (n == 0) return head_sent || send(nullptr, 0);
        if (http10) {  // the bytes as they are (ResponseHead: no chunked coding)
          iovec iov = {const_cast<char*>(data), n};
          offset += n;
          return send(&iov, 1);
        }
        char size_line[24];
        const int k = std::snprintf(size_line, sizeof size_line, "%zx\r\n", n);
        iovec iov[3] = {
            {size_line, static_cast<std::size_t>(k)}, {const_cast<char*>(data), n}, Iov("\r\n")};
        offset += n;
        return send(iov, 3);
      };
      sink.done = [&] {
        if (done) return;
        done = true;
        if (http10) {
          if (!head_sent) send(nullptr, 0);
          return;
        }
        iovec iov = Iov("0\r\n\r\n");
        send(&iov, 1);
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
      if (n == 0) return head_sent || send(nullptr, 0);
      iovec iov = {const_cast<char*>(data), n};
      offset += n;
      return send(&iov, 1);
    };
    sink.done = [&] { done = true; };
    // Called at least once, so a provider of an empty body may still wait.
    do {
      const std::size_t before = offset;
      if (owner.stopping || !res.content_provider_(offset, length - offset, sink) || !write_ok)
        return false;
      if (offset == before && offset < length) return false;  // no progress
    } while (offset < length);
    return head_sent || send(nullptr, 0);
  }

  // --- paced answers (PaceBody), on the I/O thread ------------------------

  void StartPaced(const Answered& a) {
    if (a.answer == a.res) out_res = a.res;
    paced = a.paced;
    paced_head = ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10);
    paced_chunked = !a.paced_length && !a.http10;
    paced_length = a.paced_length;
    paced_written = 0;
    paced_ended = false;
    keep_after = a.keep;
    WatchReset();
    PaceNext();
  }

  // While a paced answer is written, a reset of the connection ends it at
  // once, also in the middle of a long wait (a stall): the socket's error is
  // watched (one wait per connection, kept across the answer's steps).
  void WatchReset() {
    if (reset_watched) return;
    reset_watched = true;
    sock.async_wait(tcp::socket::wait_error,
                    [self = shared_from_this()](const boost::system::error_code& ec) {
                      self->reset_watched = false;
                      if (ec || self->closed || !self->paced) return;
                      if (!self->ClientLeft()) return self->WatchReset();
                      ++self->gen;
                      self->timer.cancel();
                      self->Close();
                    });
  }

  // Takes the paced body's next step while the listener runs. A client that
  // reset the connection is found at once (WatchReset), by the next write,
  // and before the end (so a reset answer is not taken for whole).
  void PaceNext() {
    if (closed || !paced) return;
    if (owner.stopping) return Close();
    PacedStep step;
    try {
      step = paced->Next();
    } catch (...) {
      step.kind = PacedStep::Kind::kCut;
    }
    switch (step.kind) {
      case PacedStep::Kind::kWait:
        return PaceAt(step.due);
      case PacedStep::Kind::kHead:
        out = std::exchange(paced_head, {});
        return Flush();
      case PacedStep::Kind::kPiece:
        return WritePiece(step.bytes);
      case PacedStep::Kind::kEnd:
        if (ClientLeft()) return Close();
        paced_ended = true;
        out = std::exchange(paced_head, {});
        if (paced_chunked) out += "0\r\n\r\n";
        // Short of its announced length: the connection ends (Abandoned).
        if (paced_length && paced_written < *paced_length) return Close();
        return Flush();
      case PacedStep::Kind::kCut:
        paced.reset();
        return Close();
    }
  }

  // The next step at `due`. The listener stopping cancels the wait (Stop),
  // and so does the client resetting the connection meanwhile (WatchReset).
  void PaceAt(Clock::time_point due) {
    const std::uint64_t g = ++gen;
    timer.expires_at(due);
    timer.async_wait([self = shared_from_this(), g](const boost::system::error_code& ec) {
      if (g != self->gen) return;
      ++self->gen;
      if (ec) return self->Close();
      self->PaceNext();
    });
  }

  // One piece in one write (with the head if it has not left): a chunk, or
  // the bytes as they are, never past a sized body's length.
  void WritePiece(std::string_view bytes) {
    out = std::exchange(paced_head, {});
    if (paced_length) bytes = bytes.substr(0, *paced_length - paced_written);
    if (!bytes.empty()) {
      paced_written += bytes.size();
      if (paced_chunked) out += Format("{:x}\r\n", bytes.size());
      out.append(bytes);
      if (paced_chunked) out += "\r\n";
    }
    Flush();
  }

  void Close() {
    LetBodyGo();
    // A paced answer cut short hears so (outside the lock, as the releaser).
    if (const auto abandoned = std::exchange(paced, nullptr)) abandoned->Abandoned();
    // An answer still being written did not leave whole: its releaser hears
    // so (outside the lock; it may take locks of its own).
    const std::shared_ptr<httplib::Response> unfinished = std::move(out_res);
    std::lock_guard lock(owner.mu);
    if (closed) return;
    closed = true;
    owner.open.erase(this);
    boost::system::error_code ignored;
    sock.close(ignored);
  }
};

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
  httplib::Response res;
  AnswerJson(res, 503,
             llmconform::wire::MakeErrorJson(
                 Format("mockllm has {} connections open, its limit (--max-connections); try "
                        "again later",
                        options.max_connections),
                 "server_error", nullptr, "server_busy"));
  res.set_header("Retry-After", "1");
  const std::string answer = ResponseHead(res, {.size = res.body.size()}, false, false) + res.body;
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

std::optional<std::string> CheckFraming(httplib::Headers& headers) {
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

namespace {

// Clears `res`'s own body (another takes its place) and sets its Content-Type.
void ReplaceBody(httplib::Response& res, const std::string& content_type) {
  res.body.clear();
  const auto types = res.headers.equal_range("Content-Type");
  res.headers.erase(types.first, types.second);
  res.set_header("Content-Type", content_type);
}

}  // namespace

void LendBody(httplib::Response& res, std::shared_ptr<const void> owner, std::string_view bytes,
              const std::string& content_type) {
  if (current_lend.res != &res) return res.set_content(bytes.data(), bytes.size(), content_type);
  ReplaceBody(res, content_type);
  current_lend.paced.reset();
  current_lend.owner = std::move(owner);
  current_lend.bytes = bytes;
}

void PaceBody(httplib::Response& res, std::shared_ptr<PacedBody> body,
              std::optional<std::size_t> length, const std::string& content_type) {
  if (current_lend.res != &res) {
    throw std::logic_error("PaceBody: not called from a handler the listener is running");
  }
  ReplaceBody(res, content_type);
  current_lend.bytes.reset();
  current_lend.owner.reset();
  current_lend.paced = std::move(body);
  current_lend.paced_length = length;
}

void FinishOnWorker(httplib::Response& res, std::function<void(httplib::Response&)> finish) {
  if (current_lend.res != &res) return finish(res);
  current_lend.finish = std::move(finish);
}

void AnswerJson(httplib::Response& res, int status, const nlohmann::json& body) {
  res.status = status;
  res.set_content(DumpJson(body), "application/json");
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
