// mockllm::Server: an OpenAI-compatible HTTP server that replays traces,
// in-process. The harness and the tests start one on 127.0.0.1:0, point
// clients at it, read its journal and stop it.
//
//   auto trace = mockllm::LoadTraceFile("fixtures/…/x.trace.jsonl");
//   auto server = mockllm::Server::Start({*trace}, {});
//   std::string url = (*server)->TraceBaseUrl(trace->id);  // …/t/<id>/v1
//   … client POSTs url + "/chat/completions" …
//   nlohmann::json journal = (*server)->Journal();
//   (*server)->Stop();
//
// Routes (docs/mockllm.md):
//   POST|GET /t/{trace-id}/v1/…   pinned replay of that trace (id URL-encoded) in
//                                 the request's session (SessionBy below)
//   POST|GET /v1/…                unpinned: the first exchange of any trace whose
//                                 request equals this one, as often as asked
//   GET [/t/{id}]/v1/models       the models of the loaded traces (of that trace)
//   /__admin/…                    runtime control (mockllm/admin_api.h), and:
//   GET /__admin/health           {"status":"ok","traces":[ids],"requests":N,"journal_dropped":N,
//                                  "sessions":N,"sessions_evicted":N}
//   GET /__admin/journal          the journal (below), streamed; ?after=SEQ&limit=N,
//                                 ?session=S&trace=T (GET /__admin/unmatched likewise)
//                                 gives the entries after seq SEQ, at most N
//   GET /__admin/sessions         cursor and unused exchanges per session, streamed;
//                                 ?offset=N&limit=M gives rows N to N+M-1; headers
//                                 X-Mockllm-Sessions and X-Mockllm-Sessions-Evicted
//                                 count them (max_sessions are kept, the least
//                                 recently used forgotten first)
//   GET /__admin/metrics          Prometheus text (mockllm/metrics.h); also GET /metrics
//                                 with ServerOptions::metrics
//   POST /__admin/reset           forgets sessions and journal, frees their memory
//                                 (a body is optional: no Content-Length is an
//                                 empty body)
//   OPTIONS (with `cors`)         CORS preflight (mockllm/cors.h)
// Admin guard (a web page must not drive or read a local mockllm, DNS
// rebinding included; the chat routes are not guarded): an /__admin request
// whose Host names neither the listening address, a loopback name
// (localhost, 127.0.0.1, [::1]) nor one of allow_hosts (the name compared,
// case-insensitively; any port) is answered 403 mockllm_admin_refused, as is
// one with an Origin that `cors` does not allow (any Origin without cors); an
// admin POST (and any other write with a body or a Content-Type) without a
// JSON Content-Type (application/json, application/*+json,
// application/x-ndjson, application/jsonl), which a page cannot send without
// a preflight, is 415.
// Dialects: a request's X-Mockllm-Dialect: NAME header (or
// ServerOptions::dialect) has the replayed reply rewritten into that
// provider's wire shape (mockllm/dialect_rewrite.h), faults applied on top;
// the journal entry then has "dialect". An unknown name: 400
// invalid_request_error, code mockllm_unknown_dialect.
// mockllm's own errors use OpenAI's body {"error":{"message","type","param","code"}}
// with these types: mockllm_request_mismatch (400, also "pointer", "expected",
// "actual" of the first difference, "differences" [every one], "trace",
// "session", "exchange"), mockllm_trace_exhausted (400), mockllm_no_match (404,
// with "nearest" when a recorded request shares the method and path),
// mockllm_unknown_trace (404), mockllm_proxy_failed (502), invalid_request_error
// (malformed JSON 400, wrong content type 415, body over the limit 413,
// unknown route 404). The invalid_request_error answers stand in for the API:
// on an Anthropic Messages or Gemini path they are in that API's error shape
// (mockllm/surface_errors.h); mockllm_* errors keep OpenAI's shape everywhere.
//
// Journal: a JSON array, one entry a request (admin requests excepted, but
// for those refused while ServerOptions::admin_api is false):
//   {"seq":1, "session":"default"|null, "trace":"id"|null, "method":"POST",
//    "path":"/t/x/v1/chat/completions",
//    "request":{"headers":{lower-case name: value, secrets "[redacted]"},
//               "body": parsed JSON | the text | null,
//               "body_cut": true (only when the bounds below cut the body)},
//    "response":{"status":200, "exchange":0|null (0-based index in the trace),
//                "stream":true, "bytes":N (planned), "cut":false,
//                "outcome":"sending"|"complete"|"cut"|"client_disconnected"|"stopped"},
//    "fault":{…} (when one applied),
//    "findings":[{"rule":"request_mismatch","message":"…"}] (rules:
//                mockllm/journal_entry.h FindingKind),
//    "nearest":{"trace","exchange","line","differences"} (no match, when found),
//    "proxied":"upstream URL" (answered by --proxy),
//    "dialect":"name" (the reply was rewritten into this dialect),
//    "at_ms":N (when it was journaled: ms since the server started, JournalEntry::at_ms),
//    "dropped_before":N (on the first entry read after a gap: the limits
//                        below dropped N older entries since the last reset
//                        that the reader has not seen: Journal::Page)}
// No text in an entry (a body that is not JSON, each string of a JSON body or
// of "nearest", a header, a message) keeps more than 64 KiB: longer text ends
// with "… [N bytes in all]"; a JSON body or "nearest" over 1 MiB even so is
// kept as its text, cut (a string); the oldest entries are dropped past
// journal_limit entries or journal_max_bytes of text (journal.h);
// journal_whole_bodies keeps JSON bodies whole. An error answer quotes at
// most 1 KiB of each value of the request it names (replay_book.h).
// `outcome` is amended when the body has been written, which may be just
// after a client has read the last byte.
//
// Thread safety: every method may be called from any thread.
#pragma once

#include <cstdint>
#include <expected>
#include <functional>
#include <memory>
#include <nlohmann/json.hpp>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/journal.h"
#include "mockllm/listen_options.h"
#include "mockllm/replay_book.h"
#include "mockllm/trace.h"

namespace llmconform::mockllm {

// Which session a request belongs to. Without an X-Mockllm-Session header (or
// with kNone) every client shares the session "default".
enum class SessionBy {
  kHeader,         // the X-Mockllm-Session header, "default" without it
  kClientAddress,  // the client's IP address
  kNone,           // everyone shares "default"
};

// The longest X-Mockllm-Session name: a longer one is answered 400
// (mockllm_session_name_too_long), so what sessions keep stays small.
inline constexpr std::size_t kMaxSessionNameBytes = 256;

struct ServerOptions {
  // Where and how it listens (mockllm/http_listener.h); `handler_may_block`
  // is the server's to set (a proxied request waits on its upstream).
  ListenOptions listen;
  double speed = 0;  // recorded gaps are multiplied by this; 0: no waiting
  // At speed 0, write each recorded piece on its own anyway (by default the
  // pieces of a stream go out together: nothing separates them in time; the
  // pieces of a `resplit` fault and those after a stall always go separately).
  bool piecewise = false;
  bool strict = true;  // false: lenient matching (mismatches replayed, journaled)
  MatchMode pinned_match = MatchMode::kStrict;  // how pinned requests are compared
  MatchMode unpinned_match = MatchMode::kSdk;   // how unpinned requests are compared
  SessionBy session_by = SessionBy::kHeader;
  std::vector<std::string> ignore_paths;  // request-body JSON pointers left out of matching
  OJson fault = OJson::object();          // a fault applied to every response (exchange faults win)
  std::uint64_t seed = 0;                 // seeds faults that need randomness (resplit)
  std::size_t journal_limit = 10000;      // entries kept (oldest dropped)
  std::size_t journal_max_bytes = kDefaultJournalBytes;  // text they keep (oldest dropped)
  bool journal_whole_bodies = false;  // keep JSON bodies whole (mockllm/journal.h)
  std::size_t max_sessions = 10000;   // sessions kept (least recently used forgotten)
  std::string cors;                   // "*" or an origin: CORS headers and preflights ("": none)
  // Host names the admin API answers besides the listening address and the
  // loopback ones (localhost, 127.0.0.1, ::1): see "Admin guard" above.
  std::vector<std::string> allow_hosts;
  // false: the /__admin routes are closed (the harness's gated server, `run
  // --client-cmd`, where the client under test must not change what judges
  // it): every request to one is answered 403 (mockllm_admin_closed),
  // changes nothing, and is journaled with the finding admin_request.
  bool admin_api = true;
  std::string proxy;      // forward unmatched unpinned requests to this upstream (mockllm/proxy.h)
  std::string record_to;  // …and record them into this trace file
  // --proxy's connect timeout and the longest silence of the upstream once
  // connected (mockllm/recording.h).
  int proxy_timeout_seconds = 600;
  // Replies rewritten into this dialect (mockllm/dialect_rewrite.h; "" or
  // "openai": as recorded); a request's X-Mockllm-Dialect header wins.
  std::string dialect;
  // Also serve the Prometheus metrics of GET /__admin/metrics at GET /metrics
  // (mockllm/metrics.h).
  bool metrics = false;
  // false (serve --no-metrics): count nothing; GET /__admin/metrics and
  // /metrics answer 404 mockllm_metrics_off. bench/mockllm_wrk-load.sh
  // measures what counting costs under load.
  bool collect_metrics = true;
};

class Server {
 public:
  // Loads the traces and starts serving on background threads. Errors: a
  // trace id loaded twice, an invalid fault or ignore path, a bad cors origin,
  // a proxy without record_to or whose file cannot be written, the port cannot
  // be bound.
  static std::expected<std::unique_ptr<Server>, Error> Start(std::vector<Trace> traces,
                                                             ServerOptions options);

  ~Server();  // stops
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  std::string base_url() const;  // "http://127.0.0.1:PORT"
  // base_url() + "/t/" + URL-encoded id + "/v1".
  std::string TraceBaseUrl(std::string_view trace_id) const;

  nlohmann::json Journal() const;
  nlohmann::json Sessions() const;
  // The rows of Sessions(), one at a time, read page by page (never all
  // built at once).
  void ForEachSession(const std::function<void(const nlohmann::json&)>& each) const;
  // Load-time warnings (two traces recording identical requests).
  std::vector<std::string> Warnings() const;
  // Requests that matched nothing they were compared with (mismatched,
  // exhausted, no match, unknown trace), proxied ones excepted.
  std::uint64_t mismatches() const;
  // Journal entries dropped for the journal's limits (journal_limit,
  // journal_max_bytes).
  std::uint64_t journal_dropped() const;
  // Forgets every session and the journal.
  void Reset();

  // Stops accepting, ends responses in progress (stalls and waits are cut
  // short), and returns when every server thread has finished. Idempotent.
  void Stop();

 private:
  struct Impl;
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// Percent-encodes everything but unreserved characters (RFC 3986), so a
// trace id like "skill/git-quick-commit" is one path segment.
std::string UrlEncode(std::string_view s);

}  // namespace llmconform::mockllm
