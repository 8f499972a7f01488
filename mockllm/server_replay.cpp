// The server: a request's verdict answered, and a recorded answer replayed.

#include "mockllm/server_impl.h"

namespace llmconform::mockllm {

void Server::Impl::Conclude(const HttpRequest& req, HttpResponse& res, bool pinned,
                            const Dialect* dialect, JournalEntry entry, Json body, Verdict v) {
  if (!pinned && v.trace) entry.trace = v.trace;
  entry.body = std::move(body);
  entry.findings = std::move(v.findings);
  entry.exchange = v.exchange;
  entry.nearest = std::move(v.nearest);
  if (!pinned && !v.plan && Proxied(req, res, entry)) return;
  if (v.mismatch) ++mismatches;
  if (!v.plan) {
    entry.status = v.status;
    Journaled(std::move(entry));
    return Answer(res, v.status, v.error_body);
  }
  book->NoteReplayed(v);  // its response id may be chained (mockllm/response_chain.h)
  std::shared_ptr<const LoadedTrace> keep = std::move(v.keep);
  const ResponsePlan* planned = v.plan;
  const wire::Surface surface = ExchangeSurface(keep->trace.exchanges[*v.exchange]);
  if (dialect && dialect->surface != surface) {
    entry.findings.push_back(JournalFinding{
        FindingKind::kDialectOtherSurface,
        Format("dialect \"{}\" rewrites {} replies; this {} reply was sent as recorded",
               dialect->name, wire::SurfaceName(dialect->surface), wire::SurfaceName(surface))});
  } else if (dialect && !dialect->steps.empty()) {
    // The rewritten plan lives as long as `keep` (the response outlives Handle).
    auto held = std::make_shared<std::pair<std::shared_ptr<const LoadedTrace>, ResponsePlan>>(
        keep, PlanDialectResponse(keep->trace.exchanges[*v.exchange], *dialect,
                                  v.fault ? *v.fault : OJson::object(),
                                  keep->exchanges[*v.exchange].seed));
    planned = &held->second;
    keep = std::shared_ptr<const LoadedTrace>(held, held->first.get());
  }
  if (dialect) entry.dialect = dialect->name;
  const ResponsePlan& plan = *planned;
  entry.status = plan.status;
  entry.replayed = true;
  entry.stream = plan.chunked;
  entry.bytes = plan.BodySize();
  entry.cut = plan.cut;
  entry.outcome = "sending";
  if (v.fault && !v.fault->empty())
    entry.fault = Json(*v.fault);  // ordered to plain, member by member
  const std::uint64_t seq = Journaled(std::move(entry));
  metrics.ReplayStarted(seq);
  Replay(plan, std::move(keep), seq, req, res);
}

void Server::Impl::SetOutcome(std::uint64_t seq, std::string_view outcome) {
  std::optional<JournalFinding> finding;
  if (outcome == "client_disconnected") {
    finding = JournalFinding{FindingKind::kClientDisconnected,
                             "the client closed the connection before the response was complete"};
  }
  journal.SetOutcome(seq, outcome, std::move(finding));
  if (outcome != "sending") metrics.ReplayEnded(seq);
}

std::string_view Server::Impl::WriteFailed() {
  std::lock_guard lock(stop_mu);
  return stopping ? "stopped" : "client_disconnected";
}

bool Server::Impl::Timed(const ResponsePlan& plan) const {
  return plan.delay_ms > 0 || plan.cut || plan.resplit || options.piecewise || plan.stalls ||
         (options.speed > 0 && plan.paced);
}

void Server::Impl::Replay(const ResponsePlan& plan, std::shared_ptr<const LoadedTrace> keep,
                          std::uint64_t seq, const HttpRequest& req, HttpResponse& res) {
  const bool http10 = req.http10;
  res.status = plan.status;
  for (const auto& [name, value] : plan.headers) res.SetHeader(name, value);
  // A HEAD request's answer is its head alone, as a GET's would be: the
  // providers only size it (the listener never calls them for HEAD).
  if (req.method == "HEAD") {
    res.ProvideBody(plan.chunked ? std::nullopt : std::optional(plan.content_length),
                    plan.content_type, [](std::size_t, HttpSink&) { return false; });
    SetOutcome(seq, "complete");
    return;
  }
  // Written at once: the body as one piece, a stream framed at load time
  // (ResponsePlan::framed), lent, not copied (`keep` holds the bytes until
  // they are written). HTTP/1.0 has no chunked coding: a stream goes to it
  // as one sized body.
  if (!Timed(plan)) {
    if (plan.chunked && http10) {
      res.SetBody(plan.Body(), plan.content_type);
    } else if (plan.chunked) {
      res.SetHeader("Transfer-Encoding", "chunked");
      res.LendBody(keep, plan.framed, plan.content_type);
    } else if (plan.pieces.size() == 1) {
      res.LendBody(keep, plan.pieces.front().bytes, plan.content_type);
    } else {
      res.SetBody(plan.Body(), plan.content_type);
    }
    // Complete once handed to the socket (a client that reads its answer
    // and at once reads the journal finds it so); amended when the
    // connection ends before the answer has left whole (HttpListener).
    metrics.BytesSent(plan.BodySize());
    SetOutcome(seq, "complete");
    res.on_written = [this, seq](bool whole) {
      if (!whole) SetOutcome(seq, WriteFailed());
    };
    return;
  }
  const auto ended = [this, seq](ReplayEnd end) {
    SetOutcome(seq, end == ReplayEnd::kComplete ? std::string_view("complete")
                    : end == ReplayEnd::kCut    ? std::string_view("cut")
                                                : WriteFailed());
  };
  res.PaceBody(std::make_shared<ReplayWriter>(plan, std::move(keep), options.speed,
                                              options.piecewise, metrics, seq, ended),
               plan.chunked ? std::nullopt : std::optional(plan.content_length), plan.content_type);
}

}  // namespace llmconform::mockllm
