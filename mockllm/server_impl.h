// Internal to the server (server.cpp, server_admin.cpp, server_replay.cpp):
// the server's state and its handlers. Included by no other file; its names
// are not part of the server's contract (mockllm/server.h).
#pragma once

#include <malloc.h>

#include <atomic>
#include <charconv>
#include <chrono>
#include <limits>
#include <mutex>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "mockllm/admin_api.h"
#include "mockllm/cors.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/http_listener.h"
#include "mockllm/journal.h"
#include "mockllm/metrics.h"
#include "mockllm/proxy.h"
#include "mockllm/redaction.h"
#include "mockllm/replay_book.h"
#include "mockllm/replay_writer.h"
#include "mockllm/secrets.h"
#include "mockllm/server.h"
#include "protocols/wire/chat.h"

namespace llmconform::mockllm {
namespace server_detail {

using llmconform::Format;
using llmconform::wire::MakeErrorJson;
bool IsJsonContentType(std::string_view ct);

// What an admin write may be sent as: JSON, or a trace file's JSON Lines.
bool IsAdminContentType(std::string_view ct);

// The name of a Host header value: "[::1]:8080" -> "::1", "a.example:80" ->
// "a.example", lower-cased.
std::string HostName(std::string_view host);

// Request headers for the journal, secrets redacted.
std::vector<std::pair<std::string, std::string>> JournalHeaders(const HttpFields& headers);

// Where a request goes, from its raw target.
struct Route {
  enum class Kind { kAdmin, kPinned, kUnpinned, kUnknownTrace } kind = Kind::kUnpinned;
  std::string path;      // the raw path (no query)
  std::string rest;      // the replay path: "/v1/…" (pinned: after the pin)
  std::string trace_id;  // pinned: the trace; unknown trace: as the client named it
};

}  // namespace server_detail

using namespace server_detail;  // NOLINT: the server files share these names

struct Server::Impl {
  ServerOptions options;
  std::unique_ptr<ReplayBook> book;
  std::unique_ptr<Proxy> proxy;
  mockllm::Journal journal;
  // What a journal entry's at_ms counts from.
  const std::chrono::steady_clock::time_point started = std::chrono::steady_clock::now();
  std::atomic<std::uint64_t> mismatches = 0;
  Metrics metrics;
  HttpListener http;
  int port = 0;

  std::mutex stop_mu;
  bool stopping = false;
  bool stopped = false;

  explicit Impl(ServerOptions opts)
      : options(std::move(opts)),
        journal(options.journal_limit, options.journal_max_bytes, options.journal_whole_bodies),
        metrics(options.collect_metrics) {}

  // Where `target` goes: admin, a pinned trace, or unpinned.
  Route Resolve(const std::string& target) const;

  // Journals `entry` and counts it in the metrics; returns its seq.
  std::uint64_t Journaled(JournalEntry entry);

  // GET /__admin/metrics (and /metrics with ServerOptions::metrics).
  void ServeMetrics(HttpResponse& res);

  void Answer(HttpResponse& res, int status, const Json& body);

  void HandleAdmin(const HttpRequest& req, HttpResponse& res, const Route& route);

  // The admin guard (server.h): the status and error body refusing `req`, or
  // nullopt when it may use the admin API.
  std::optional<std::pair<int, Json>> AdminGuard(const HttpRequest& req) const;

  // ServerOptions::admin_api is false: the request changes nothing and is
  // journaled with the finding admin_request.
  void RefuseAdmin(const HttpRequest& req, HttpResponse& res, const Route& route);

  // Forgets sessions and journal, and hands the freed memory back to the
  // system.
  void ResetAll();

  // Reads the unsigned query parameters named in `params` into where they
  // point (left as they are when absent); false, with `res` a 400, when one
  // is not a number.
  bool CountParams(const HttpRequest& req, HttpResponse& res,
                   std::initializer_list<std::pair<const char*, std::uint64_t*>> params);

  // GET /__admin/sessions[?offset=N][&limit=N]: the rows of
  // ReplayBook::Sessions from the Nth (default 0), at most `limit` (default
  // all), as one JSON array written page by page: ten thousand sessions of a
  // long trace are never one string in memory.
  void StreamSessions(const HttpRequest& req, HttpResponse& res);

  // GET /__admin/journal[?session=S&trace=T][&after=SEQ][&limit=N] and
  // /__admin/unmatched: the entries with a seq above `after` (default 0) that
  // `keep` accepts (all without it), at most `limit` (default all), as one
  // JSON array written page by page, so a large journal is never one string
  // in memory. A "dropped_before" on an entry left out moves to the next one
  // kept, so a filtered view still tells that older requests were dropped.
  void StreamJournal(const HttpRequest& req, HttpResponse& res,
                     std::function<bool(const Json&)> keep);

  Json ModelsList(const std::optional<std::string>& trace) const;

  // The session a request belongs to (--session-by).
  std::string SessionOf(const HttpRequest& req) const;

  // Forwards an unmatched request to --proxy; false when there is no proxy.
  bool Proxied(const HttpRequest& req, HttpResponse& res, JournalEntry& entry);

  // With --cors: answers a preflight (true), or adds the CORS headers to `res`.
  bool Cors(const HttpRequest& req, HttpResponse& res) const;

  // Answers with an error and journals it (with `body`, when read); an
  // error where mockllm stands in for the API is in the shape of the
  // surface of the request's path (mockllm/surface_errors.h InSurfaceShape).
  void Fail(HttpResponse& res, JournalEntry& entry, Json& body, int status, const Json& error,
            std::optional<FindingKind> kind);

  // Reads a request's JSON body into `body`, redacted, and journals it in
  // `entry`; false when it was refused (answered and journaled by Fail).
  bool ReadBody(const HttpRequest& req, HttpResponse& res, JournalEntry& entry, Json& body);

  void Handle(const HttpRequest& req, HttpResponse& res);

  // Answers a request with its verdict (proxying an unmatched unpinned one
  // when there is a proxy) and journals it.
  void Conclude(const HttpRequest& req, HttpResponse& res, bool pinned, const Dialect* dialect,
                JournalEntry entry, Json body, Verdict v);

  void SetOutcome(std::uint64_t seq, std::string_view outcome);

  // The outcome of an answer that did not leave whole: the server stopping
  // ends every connection, and that is not the client leaving.
  std::string_view WriteFailed();

  // True when writing the plan takes time (a delay, stalls, a cut, pieces on
  // their recorded times, or each piece in its own write), so the listener
  // paces it (ReplayWriter); false when it is written at once, as one body.
  bool Timed(const ResponsePlan& plan) const;

  // Runs on an I/O thread and must not wait: what waits (the plan's delay,
  // stalls, recorded times) the listener paces on its event loop.
  // `keep` holds the plan's trace until the response is written (it may be
  // unloaded meanwhile).
  void Replay(const ResponsePlan& plan, std::shared_ptr<const LoadedTrace> keep, std::uint64_t seq,
              const HttpRequest& req, HttpResponse& res);

  // Journals what the HTTP layer refused before the handler ran.
  void Refused(const HttpRequest& req, int status, const std::string& message);

  std::expected<void, Error> Listen();

  void Stop();
};

}  // namespace llmconform::mockllm
