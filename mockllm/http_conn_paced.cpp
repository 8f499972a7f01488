// One connection: writing a paced answer (HttpResponse::Paced) from the I/O thread.

#include "mockllm/http_conn.h"

namespace llmconform::mockllm {

void HttpListener::Impl::Conn::StartPaced(const Answered& a) {
  const auto& body = std::get<HttpResponse::Paced>(a.answer->body);
  out_res = a.answer;
  paced = body.body;
  paced_head =
      ResponseHead(*a.answer, a.BodyFraming(), a.keep, a.http10, owner.options.keep_alive_seconds);
  paced_chunked = !body.length && !a.http10;
  paced_length = body.length;
  paced_written = 0;
  paced_ended = false;
  keep_after = a.keep;
  WatchReset();
  PaceNext();
}

void HttpListener::Impl::Conn::WatchReset() {
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

void HttpListener::Impl::Conn::PaceNext() {
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

void HttpListener::Impl::Conn::PaceAt(Clock::time_point due) {
  const std::uint64_t g = ++gen;
  timer.expires_at(due);
  timer.async_wait([self = shared_from_this(), g](const boost::system::error_code& ec) {
    if (g != self->gen) return;
    ++self->gen;
    if (ec) return self->Close();
    self->PaceNext();
  });
}

void HttpListener::Impl::Conn::WritePiece(std::string_view bytes) {
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

}  // namespace llmconform::mockllm
