// One connection: reading and judging requests, waiting, draining, closing.

#include "mockllm/http_conn.h"

namespace llmconform::mockllm {

bool HttpListener::Impl::Conn::HoldBody(std::size_t need) {
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

void HttpListener::Impl::Conn::LetBodyGo() {
  owner.bodies_held -= body_held;
  body_held = 0;
}

std::optional<HttpListener::Impl::Pumped> HttpListener::Impl::Conn::BudgetBody() {
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

void HttpListener::Impl::Conn::NewRequest(Clock::time_point idle_until) {
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

Clock::time_point HttpListener::Impl::Conn::ReadDeadline() const {
  if (draining) return drain_deadline;
  if (!started) return idle_deadline;
  if (!parser->is_header_done()) return head_deadline;
  return last_progress + std::chrono::milliseconds(owner.options.read_timeout_ms);
}

HttpListener::Impl::Pumped HttpListener::Impl::Conn::Refuse(int status, std::string message,
                                                            std::string code) {
  refused_status = status;
  refused_message = std::move(message);
  refused_code = std::move(code);
  return Pumped::kRefused;
}

HttpListener::Impl::Pumped HttpListener::Impl::Conn::RefuseHeadTooLarge() {
  return Refuse(431, Format("the request head is larger than the limit of {} bytes", kMaxHeadBytes),
                "request_header_fields_too_large");
}

void HttpListener::Impl::Conn::KeepRefusedHead(std::string_view unparsed, bool from_start) {
  unparsed = unparsed.substr(0, kMaxHeadBytes);
  if (from_start || parser->get().method_string().empty()) {
    refused_head = http_io::RawHead(unparsed);
    return;
  }
  refused_head = Head();
  const HttpRequest rest = http_io::RawHead("GET / HTTP/1.1\r\n" + std::string(unparsed));
  for (const auto& [name, value] : rest.headers) {
    auto [lo, hi] = refused_head.headers.equal_range(name);
    if (std::none_of(lo, hi, [&](const auto& f) { return f.second == value; }))
      refused_head.headers.emplace(name, value);
  }
}

HttpListener::Impl::Pumped HttpListener::Impl::Conn::RefuseParse(
    const boost::system::error_code& ec, std::string_view unparsed, bool from_start) {
  if (ec == http::error::body_limit) {
    // Beast refuses a Content-Length past the limit before it calls the head
    // done: keep what it read, so the answer and the journal name the path.
    if (!parser->is_header_done()) KeepRefusedHead(unparsed, from_start);
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

HttpListener::Impl::Pumped HttpListener::Impl::Conn::Pump() {
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

void HttpListener::Impl::Conn::Wait(bool write, Clock::time_point deadline) {
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

void HttpListener::Impl::Conn::OnReadable() {
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

void HttpListener::Impl::Conn::OnReadTimeout() {
  if (!started) return Close();  // idle keep-alive, or a connection that never spoke
  Refuse(408,
         Format("the request did not arrive in time (its head within {} ms, its body without a "
                "pause that long)",
                owner.options.read_timeout_ms),
         "request_timeout");
  AnswerRefused();
}

void HttpListener::Impl::Conn::StartDrain() {
  ::shutdown(fd, SHUT_WR);
  draining = true;
  drain_deadline = Clock::now() + kDrainTime;
  DrainSome();
}

void HttpListener::Impl::Conn::DrainSome() {
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

void HttpListener::Impl::Conn::Close() {
  LetBodyGo();
  // A paced answer cut short hears so (outside the lock, as the releaser).
  if (const auto abandoned = std::exchange(paced, nullptr)) abandoned->Abandoned();
  // An answer still being written did not leave whole: its releaser hears
  // so (outside the lock; it may take locks of its own).
  const std::shared_ptr<HttpResponse> unfinished = std::move(out_res);
  std::lock_guard lock(owner.mu);
  if (closed) return;
  closed = true;
  owner.open.erase(this);
  boost::system::error_code ignored;
  sock.close(ignored);
}

}  // namespace llmconform::mockllm
