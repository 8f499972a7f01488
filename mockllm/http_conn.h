// Internal to the listener (http_listener.cpp, http_conn_*.cpp): the
// listener's state and one connection's state machine. Included by no
// other file; its names are not part of the listener's contract
// (mockllm/http_listener.h).
#pragma once

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
#include "mockllm/http_listener.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace listener_detail {

namespace asio = boost::asio;
namespace http = boost::beast::http;
using tcp = asio::ip::tcp;
using http_io::Clock;
using http_io::ConnectionFailed;
using http_io::IEquals;
using http_io::Iov;
using http_io::SendAll;
using llmconform::Format;

inline constexpr std::size_t kMaxHeadBytes = 64 * 1024;
inline constexpr std::size_t kReadChunk = 64 * 1024;
inline constexpr auto kDrainTime = std::chrono::milliseconds(500);
inline constexpr std::size_t kMaxDrainBytes = 64 * 1024 * 1024;
inline constexpr std::size_t kDrainTurnBytes = 256 * 1024;

inline std::string Str(boost::beast::string_view s) { return std::string(s.data(), s.size()); }

inline bool Bodiless(const HttpResponse& res, bool head_only) {
  return head_only || res.status < 200 || res.status == 204 || res.status == 304;
}

// How the head frames a body: chunked, or `size` bytes (Content-Length).
struct Framing {
  bool chunked = false;
  std::size_t size = 0;
};

// The framing of `res`'s body: a paced or provided body's length (none:
// chunked), or the size of its bytes.
inline Framing FramingOf(const HttpResponse& res) {
  std::optional<std::size_t> length = res.Bytes().size();
  if (const auto* paced = std::get_if<HttpResponse::Paced>(&res.body)) length = paced->length;
  if (const auto* provided = std::get_if<HttpResponse::Provided>(&res.body))
    length = provided->length;
  return {!length.has_value(), length.value_or(0)};
}

// The response head: status line, the handler's headers (unsafe ones left
// out), and the framing and connection headers it did not set (a handler
// that sets Transfer-Encoding itself has framed its body).
// `keep` answers say `Keep-Alive: timeout=keep_alive_seconds` unless the
// handler set Keep-Alive itself.
std::string ResponseHead(const HttpResponse& res, Framing body, bool keep, bool http10,
                         int keep_alive_seconds);

using Message = http::request<http::string_body>;

inline HttpFields HeadersOf(const Message& m) {
  HttpFields headers;
  for (const auto& f : m) headers.emplace(Str(f.name_string()), Str(f.value()));
  return headers;
}

}  // namespace listener_detail

using namespace listener_detail;  // NOLINT: the listener files share these names

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
    if (!ec) remote_addr = remote.address().to_string();
    NewRequest(Clock::now() + std::chrono::milliseconds(owner.options.read_timeout_ms));
  }
  ~Conn() { Close(); }

  Impl& owner;
  asio::io_context& ioc;
  tcp::socket sock;
  asio::steady_timer timer;
  const int fd;
  std::string remote_addr;  // the client's address (HttpRequest::remote_addr)
  boost::beast::flat_buffer buf;
  std::optional<http::request_parser<http::string_body>> parser;
  bool head_checked = false;     // the head's framing was judged
  HttpFields head_fields;        // the head's fields, once judged (moved out by Head)
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
  std::string out;            // the head (or a whole refusal)
  std::string_view out_lent;  // the body written: bytes the response holds (owned or lent)
  // The response being written, held so that its body's bytes (and a lent
  // body's owner) stay until they have left, and so that its on_written
  // runs once the answer has left (told true) or the connection ended first
  // (false).
  std::shared_ptr<HttpResponse> out_res;
  // A paced answer being written (HttpResponse::Paced): its body, its head
  // until it leaves, its framing and the body bytes written.
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
  HttpRequest refused_head;   // what was read of a head Beast refused
  std::size_t body_held = 0;  // this request's share of owner.bodies_held

  // Counts `need` bytes of this request's body into the server's budget;
  // false (nothing counted) when they do not fit.
  bool HoldBody(std::size_t need);
  // The request's body has left the connection (to the handler), or never
  // will arrive: its share of the budget is given back.
  void LetBodyGo();
  // What the request's body holds, or will once announced: refused 503 when
  // the server's budget for bodies cannot take it.
  std::optional<Pumped> BudgetBody();

  void NewRequest(Clock::time_point idle_until);

  Clock::time_point ReadDeadline() const;

  Pumped Refuse(int status, std::string message, std::string code);

  Pumped RefuseHeadTooLarge();

  // Keeps what was read of a head that is refused before it is complete (for
  // the journal, and to say what was wrong with its framing). `unparsed`: the
  // bytes of this read; `from_start`: they begin with the head. Otherwise the
  // parser took the start line and earlier fields in earlier reads, and the
  // fields of this read are added as they are written.
  void KeepRefusedHead(std::string_view unparsed, bool from_start);

  // `unparsed`: the bytes the failed parse was given (the head, for a head
  // Beast refused).
  Pumped RefuseParse(const boost::system::error_code& ec, std::string_view unparsed,
                     bool from_start);

  // Reads what has arrived (never blocks) and parses it, until the request is
  // complete, more bytes are needed, the connection ended, or the request is
  // refused.
  Pumped Pump();

  // --- I/O thread -------------------------------------------------------

  // Waits for the socket (readable, or writable when `write`) or `deadline`.
  void Wait(bool write, Clock::time_point deadline);

  // Only after a read that found nothing, in the same handler (see OnAccepted).
  void WaitRead() { Wait(false, ReadDeadline()); }

  void OnReadable();

  void OnReadTimeout();

  // A complete request: the handler runs here, unless it may block; an
  // answer its handler leaves to a content provider is written by a worker
  // (the provider may wait).
  // A handler that hands the rest of its work to a worker (HttpResponse::OnWorker)
  // has it finished there, and its answer written from there.
  void Dispatch();

  // Writes `out` then `out_lent` from out_at without blocking; waits for
  // room when the socket is full, then goes on with the connection.
  void Flush();

  // After an answer: the next request, or the end of the connection. Posted,
  // so pipelined requests do not recurse.
  void AfterAnswer(bool keep);

  // Answers a refused request in OpenAI's error form, then closes.
  void AnswerRefused();

  // Closes after a refusal or a last answer has left: stops sending, then
  // reads and drops what the client still sends for a moment (kDrainTime, at
  // most kMaxDrainBytes), so closing with unread bytes does not reset the
  // connection before the client reads the answer.
  void StartDrain();

  void DrainSome();

  // --- handler and worker side -------------------------------------------

  // The parsed head: method, target, decoded path and query parameters,
  // version, headers, the client's address.
  HttpRequest Head();

  // A request the handler has answered. Shared, so a worker job can hold it
  // while a provider writes.
  struct Answered {
    std::shared_ptr<HttpRequest> req;
    // The handler's response: its on_written runs when the last holder lets
    // go, told by written_whole whether the answer was written whole.
    std::shared_ptr<HttpResponse> res;
    // What is written: `res`, or an answer of the listener's own (405 for a
    // method not served, 500 when the handler threw).
    std::shared_ptr<HttpResponse> answer;
    bool keep = false, http10 = false, head_only = false;
    // The rest of the handler's work is still to run on a worker (the
    // fields above are settled once it has run).
    bool Finishing() const { return std::holds_alternative<HttpResponse::OnWorker>(answer->body); }
    bool Provided() const {
      return std::holds_alternative<HttpResponse::Provided>(answer->body) &&
             !Bodiless(*answer, head_only);
    }
    bool Paced() const {
      return std::holds_alternative<HttpResponse::Paced>(answer->body) &&
             !Bodiless(*answer, head_only);
    }
    Framing BodyFraming() const { return FramingOf(*answer); }
  };

  // Runs the handler on the complete request.
  Answered Answer();

  // Worker: runs the work the handler handed on (HttpResponse::OnWorker) on
  // its response, then settles the answer as Answer does.
  void Finish(Answered& a);

  // How the connection goes on after what the handler (or its finish) left.
  void Settle(Answered& a);

  // Runs the handler on `res`; returns `res`, or an answer of its own when
  // the method is not served or the handler threw.
  std::shared_ptr<HttpResponse> RunHandler(const HttpRequest& req,
                                           const std::shared_ptr<HttpResponse>& res);

  // Runs `fill` (the handler, or the rest of its work) on `res`; returns
  // `res`, or a 500 of its own when it threw.
  std::shared_ptr<HttpResponse> Guarded(const std::shared_ptr<HttpResponse>& res,
                                        const std::function<void()>& fill);

  // Worker: writes a plain-body answer, blocking up to the write timeout.
  bool SendPlain(const Answered& a);

  // How long a worker's write may make no progress (--write-timeout-ms).
  std::chrono::milliseconds WriteStall() const;

  // The client is gone for good: a reset, not a FIN (a half-close after the
  // request still reads the answer, however long it takes to come).
  bool ClientLeft() const { return ConnectionFailed(fd); }

  // Worker: writes an answer whose body a content provider gives. Its head
  // leaves with the provider's first write — a zero-length write sends it
  // alone, so a provider that waits before the status line (a replay's
  // delay) waits first and then starts the answer — or when the provider
  // ends. Each piece the provider writes goes in one call (a chunk: its size
  // line, bytes and CRLF gathered with the head if it has not left).
  bool WriteProvided(const Answered& a);

  bool WriteProvidedOrThrow(const HttpResponse& res, bool keep, bool http10);

  // --- paced answers (HttpResponse::Paced), on the I/O thread --------------

  void StartPaced(const Answered& a);

  // While a paced answer is written, a reset of the connection ends it at
  // once, also in the middle of a long wait (a stall): the socket's error is
  // watched (one wait per connection, kept across the answer's steps).
  void WatchReset();

  // Takes the paced body's next step while the listener runs. A client that
  // reset the connection is found at once (WatchReset), by the next write,
  // and before the end (so a reset answer is not taken for whole).
  void PaceNext();

  // The next step at `due`. The listener stopping cancels the wait (Stop),
  // and so does the client resetting the connection meanwhile (WatchReset).
  void PaceAt(Clock::time_point due);

  // One piece in one write (with the head if it has not left): a chunk, or
  // the bytes as they are, never past a sized body's length.
  void WritePiece(std::string_view bytes);

  void Close();
};

}  // namespace llmconform::mockllm
