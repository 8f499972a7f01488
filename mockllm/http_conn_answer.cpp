// One connection: running the handler and writing its answer.

#include "mockllm/http_conn.h"
#include "mockllm/surface_errors.h"

namespace llmconform::mockllm {

std::string listener_detail::ResponseHead(const HttpResponse& res, Framing body, bool keep,
                                          bool http10, int keep_alive_seconds) {
  std::string head = Format("HTTP/1.1 {} {}\r\n", res.status, http_io::Reason(res.status));
  bool has_length = false, has_encoding = false, has_connection = false, has_keep_alive = false;
  for (const auto& [name, value] : res.headers) {
    if (!http_io::SafeHeader(name, value)) continue;
    has_length = has_length || IEquals(name, "Content-Length");
    has_encoding = has_encoding || IEquals(name, "Transfer-Encoding");
    has_connection = has_connection || IEquals(name, "Connection");
    has_keep_alive = has_keep_alive || IEquals(name, "Keep-Alive");
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
  if (keep && !has_keep_alive) head += Format("Keep-Alive: timeout={}\r\n", keep_alive_seconds);
  head += "\r\n";
  return head;
}

void HttpListener::Impl::Conn::Dispatch() {
  if (owner.options.handler_may_block) {
    return owner.pool->Submit([self = shared_from_this()] {
      Answered a = self->Answer();
      while (a.Finishing()) self->Finish(a);
      if (a.Paced()) return asio::post(self->ioc, [self, a] { self->StartPaced(a); });
      const bool ok = a.Provided() ? self->WriteProvided(a) : self->SendPlain(a);
      asio::post(self->ioc, [self, keep = ok && a.keep] { self->AfterAnswer(keep); });
    });
  }
  Answered a = Answer();
  if (a.Finishing() || a.Provided()) {
    return owner.pool->Submit([self = shared_from_this(), a]() mutable {
      while (a.Finishing()) self->Finish(a);
      if (a.Paced()) return asio::post(self->ioc, [self, a] { self->StartPaced(a); });
      const bool ok = a.Provided() ? self->WriteProvided(a) : self->SendPlain(a);
      asio::post(self->ioc, [self, keep = ok && a.keep] { self->AfterAnswer(keep); });
    });
  }
  if (a.Paced()) return StartPaced(a);
  out =
      ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10, owner.options.keep_alive_seconds);
  if (!Bodiless(*a.answer, a.head_only)) out_lent = a.answer->Bytes();
  out_res = a.answer;
  out_at = 0;
  keep_after = a.keep;
  Flush();
}

void HttpListener::Impl::Conn::Flush() {
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
  out_lent = {};
  out_at = 0;
  if (paced && !paced_ended) {
    // The next step at once; past a few steps due at once, posted, so they
    // neither recurse deeply nor hold up the thread's other connections.
    if (pace_depth >= 8) return asio::post(ioc, [self = shared_from_this()] { self->PaceNext(); });
    ++pace_depth;
    PaceNext();
    --pace_depth;
    return;
  }
  paced.reset();
  if (out_res) {
    out_res->written_whole = true;
    out_res.reset();
  }
  if (refused) return StartDrain();
  AfterAnswer(keep_after);
}

void HttpListener::Impl::Conn::AfterAnswer(bool keep) {
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

void HttpListener::Impl::Conn::AnswerRefused() {
  HttpRequest req = parser->is_header_done() ? Head() : std::move(refused_head);
  req.remote_addr = remote_addr;
  if (owner.on_refused && !req.method.empty())
    owner.on_refused(req, refused_status, refused_message);
  HttpResponse res;
  // In the shape of the API of the path, when the head got that far (mockllm/surface_errors.h).
  AnswerJson(res, refused_status,
             InSurfaceShape(llmconform::wire::SurfaceOfPath(req.path).value_or(
                                llmconform::wire::Surface::kChat),
                            refused_status,
                            llmconform::wire::MakeErrorJson(
                                refused_message, "invalid_request_error", nullptr, refused_code)));
  if (refused_status == 503) res.SetHeader("Retry-After", "1");
  out = ResponseHead(res, FramingOf(res), false, false, 0).append(res.Bytes());
  out_at = 0;
  refused = true;
  Flush();
}

HttpRequest HttpListener::Impl::Conn::Head() {
  HttpRequest req;
  const Message& m = parser->get();
  req.method = Str(m.method_string());
  req.target = Str(m.target());
  ParseTarget(req);
  req.http10 = m.version() == 10;
  req.headers = head_checked ? std::move(head_fields) : HeadersOf(m);
  req.remote_addr = remote_addr;
  return req;
}

HttpListener::Impl::Conn::Answered HttpListener::Impl::Conn::Answer() {
  Answered a;
  a.req = std::make_shared<HttpRequest>(Head());
  a.req->headers.erase(std::string("Accept-Encoding"));
  a.req->headers.erase(std::string("Range"));
  a.req->body = std::move(parser->get().body());
  LetBodyGo();
  a.res = std::make_shared<HttpResponse>();
  a.answer = RunHandler(*a.req, a.res);
  Settle(a);
  return a;
}

void HttpListener::Impl::Conn::Finish(Answered& a) {
  const auto finish =
      std::move(std::get<HttpResponse::OnWorker>(std::exchange(a.res->body, {})).finish);
  a.answer = Guarded(a.res, [&] { finish(*a.res); });
  Settle(a);
}

void HttpListener::Impl::Conn::Settle(Answered& a) {
  if (a.Finishing()) return;
  a.keep = (head_checked ? head_keep_alive : parser->get().keep_alive()) &&
           !IEquals(FieldValue(a.answer->headers, "Connection"), "close");
  a.http10 = a.req->http10;
  // Without chunked coding, closing the connection is what ends the body.
  if (a.http10 && a.BodyFraming().chunked) a.keep = false;
  a.head_only = a.req->method == "HEAD";
}

std::shared_ptr<HttpResponse> HttpListener::Impl::Conn::RunHandler(
    const HttpRequest& req, const std::shared_ptr<HttpResponse>& res) {
  static const std::unordered_set<std::string> kServed = {"GET",   "HEAD",   "POST",   "PUT",
                                                          "PATCH", "DELETE", "OPTIONS"};
  if (!kServed.contains(req.method)) {
    auto own = std::make_shared<HttpResponse>();
    AnswerJson(
        *own, 405,
        llmconform::wire::MakeErrorJson(Format("method {} is not served", req.method.substr(0, 32)),
                                        "invalid_request_error", nullptr, "method_not_allowed"));
    return own;
  }
  return Guarded(res, [&] { owner.handler(req, *res); });
}

std::shared_ptr<HttpResponse> HttpListener::Impl::Conn::Guarded(
    const std::shared_ptr<HttpResponse>& res, const std::function<void()>& fill) {
  std::string what;
  try {
    fill();
  } catch (const std::exception& e) {
    what = e.what();
  } catch (...) {
    what = "unknown error";
  }
  if (what.empty()) {
    // A 1xx written as the answer leaves the client waiting for the real
    // one, or taking the next pipelined answer for it.
    if (res->status >= 200 && res->status <= 599) return res;
    what = Format("the answer's status {} is not a final HTTP status (200-599)", res->status);
  }
  auto own = std::make_shared<HttpResponse>();
  AnswerJson(
      *own, 500,
      llmconform::wire::MakeErrorJson(Format("mockllm internal error: {}", what), "server_error"));
  return own;
}

bool HttpListener::Impl::Conn::SendPlain(const Answered& a) {
  const std::string head =
      ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10, owner.options.keep_alive_seconds);
  iovec iov[2] = {Iov(head),
                  Iov(Bodiless(*a.answer, a.head_only) ? std::string_view() : a.answer->Bytes())};
  const bool ok = SendAll(fd, iov, 2, WriteStall());
  if (a.answer == a.res) a.res->written_whole = ok;
  return ok;
}

std::chrono::milliseconds HttpListener::Impl::Conn::WriteStall() const {
  return std::chrono::milliseconds(owner.options.write_timeout_ms);
}

bool HttpListener::Impl::Conn::WriteProvided(const Answered& a) {
  bool ok = false;
  try {
    ok = WriteProvidedOrThrow(*a.answer, a.keep, a.http10);
  } catch (...) {
    ok = false;  // a provider that throws cuts its answer where it stands
  }
  if (a.answer == a.res) a.res->written_whole = ok;
  return ok;
}

bool HttpListener::Impl::Conn::WriteProvidedOrThrow(const HttpResponse& res, bool keep,
                                                    bool http10) {
  const auto& provided = std::get<HttpResponse::Provided>(res.body);
  const Framing framing = FramingOf(res);
  const std::string head =
      ResponseHead(res, framing, keep, http10, owner.options.keep_alive_seconds);
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
  HttpSink sink;
  if (framing.chunked) {
    sink.write = [&](std::string_view piece) {
      const char* data = piece.data();
      std::size_t n = piece.size();
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
      if (owner.stopping || !provided.provide(offset, sink) || !write_ok) return false;
    }
    return write_ok;
  }
  const std::size_t length = framing.size;
  sink.write = [&](std::string_view piece) {
    const char* data = piece.data();
    std::size_t n = piece.size();
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
    if (owner.stopping || !provided.provide(offset, sink) || !write_ok) return false;
    if (offset == before && offset < length) return false;  // no progress
  } while (offset < length);
  return head_sent || send(nullptr, 0);
}

}  // namespace llmconform::mockllm
