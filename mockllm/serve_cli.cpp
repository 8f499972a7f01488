#include "mockllm/serve_cli.h"

#include <malloc.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdint>
#include <filesystem>
#include <iostream>
#include <map>
#include <string>

#include "base/atomic_file.h"
#include "base/file.h"
#include "base/format.h"
#include "base/json_read.h"
#include "mockllm/cli.h"
#include "mockllm/cli_support.h"
#include "mockllm/fault.h"
#include "mockllm/http_listener.h"
#include "mockllm/sdk_match.h"
#include "mockllm/server.h"

namespace llmconform::mockllm {
namespace {

using llmconform::Format;
namespace fs = std::filesystem;

const std::string kServeFooter = std::string(R"(
Routes:
  POST|GET /t/{trace-id}/v1/...  pinned replay of one trace (id URL-encoded) in the
                                 request's session
  POST|GET /v1/...               unpinned: any trace's exchange with an equal request
  GET [/t/{id}]/v1/models        the models named in the loaded traces

Admin API (runtime control):
  GET    /__admin/health                     status, trace ids, request count
  GET    /__admin/journal[?session=S&trace=T] the journal (filtered when asked; streamed)
  GET    /__admin/unmatched                  requests nothing answered, with "nearest" (streamed)
         …&after=SEQ&limit=N                 a page of either
  GET    /__admin/sessions[?offset=N&limit=M] cursor and unused exchanges per session (streamed)
  GET    /__admin/metrics                    Prometheus text format 0.0.4: requests by route,
                                             trace, status and outcome, replay latency and
                                             first-byte histograms, bytes sent, faults by kind,
                                             sessions, journal, connections (also GET /metrics
                                             with --metrics)
  POST   /__admin/traces                     load traces at runtime: a trace file's JSON
                                             Lines, or JSON: {"id",...,"exchanges":[...]},
                                             a stub {"request","response"}, or an array
  DELETE /__admin/traces/{id}                unload a trace (id URL-encoded)
  POST   /__admin/reset                      forget sessions and journal

Sessions (--session-by): header (default) takes the X-Mockllm-Session header;
without it every client shares the session "default", so two clients replaying
the same trace at once must each send their own X-Mockllm-Session.
client-address: one session per client IP address. none: one session for all.

Bounds: no journal entry keeps more than 64 KiB of any text, each string of a
JSON body included (longer text ends with "... [N bytes in all]"), nor more
than 1 MiB of a JSON body; the journal keeps at most --journal-limit entries
and --journal-max-bytes bytes (the oldest dropped; the first entry read after
such a gap says "dropped_before": N); an error answer quotes at
most 1 KiB of each value of the request it names (a mismatch's differences,
"nearest"); --max-sessions sessions are kept (least recently used forgotten),
each named in at most 256 bytes (a longer X-Mockllm-Session is 400);
POST /__admin/reset frees what sessions and journal held. A request without
Content-Length has an empty body; a Content-Length that is not a number is 400.
Request bodies held while they arrive count against one budget of 256 MiB for
all connections (a Content-Length counts whole at once): past it, 503. The
search for the nearest recorded request walks at most 1048576 JSON values.

Replay: in a session the Nth request is compared with the Nth recorded request
(JSON compared as values, secrets redacted as `record` redacts them, --ignore
paths left out) and answered with the Nth response. A mismatch names every
differing JSON pointer; on /v1 it names the nearest recorded request.
Matching (--match): strict compares exactly; sdk also treats these API defaults
as absent on both sides:
)") + std::string(SdkDefaultsHelp()) +
                                 R"(
By default pinned routes match strict and unpinned /v1 matches sdk; --match
strict|sdk sets both; lenient replays a mismatched pinned request anyway.

Retries: when a request was answered with an injected fault (--fault, or an
exchange's "fault") and the session's next request repeats it, the repeat is
another attempt at the same exchange (unless the next recorded exchange matches
it too: a recorded retry replays in order). times=N limits the faults to the
first N attempts of each exchange: --fault status=429 --fault times=1 answers
429 once, then the retry succeeds.

A stream is written in its recorded pieces, each at its recorded time
multiplied by --speed; at --speed 0 nothing waits and the pieces go out together
(--piecewise: one by one), except a resplit fault's pieces, always one by one.

Errors, in OpenAI's {"error":{...}} form: mockllm_request_mismatch (400;
"pointer", "expected", "actual" of the first difference, "differences"),
mockllm_trace_exhausted (400), mockllm_no_match (404, "nearest"),
mockllm_unknown_trace (404), mockllm_proxy_failed (502); malformed JSON 400,
wrong content type 415, body over --max-body 413, unknown route 404 (these four
in the API's own error shape on Anthropic /messages and Gemini paths); on
/responses a previous_response_id no replayed response carried: the API's 400
previous_response_not_found.

Journal findings (rule): request_mismatch, trace_exhausted, no_match,
unknown_trace, malformed_request, admin_request, proxy_failed, client_disconnected,
dialect_other_surface.

Faults (--fault KEY[=VALUE], or an exchange's "fault" object; VALUE is JSON):
  status=N body=.. retry_after=S retry_after_ms=MS headers={..}   answer HTTP N
                        (a final status, 200-599; header names are tokens, values
                        hold no control character); the default body is the
                        request's API's error (OpenAI's, Anthropic's, Gemini's),
                        a 429 has its rate-limit headers (x-ratelimit-*,
                        anthropic-ratelimit-*)
  delay_ms=N            wait before the first byte
  cut_after_bytes=N     close the connection after N body bytes
  cut_after_events=N    close it after N SSE events
  drop_done             leave out the stream's end: data: [DONE], the Responses
                        terminal event, message_stop, Gemini's last event
  malformed_event=K     replace event K (0-based) with broken JSON
  resplit [seed=S]      re-split the stream into random pieces (same bytes)
  crlf                  CRLF line ends          bom     a UTF-8 BOM first
  keepalive_ms=N        ': keep-alive' comments every N ms of the recorded timeline
  error_event='{"after_events":K,"error":{..},"as":..}'  an error event after
                        HTTP 200 in the API's shape (on /responses `event: error`,
                        or "as":"failed" `response.failed`; on /messages
                        Anthropic's `event: error`, overloaded_error by default)
  stall_ms=N [stall_after_events=K]   stop sending for N ms (past a client timeout)
  times=N               the faults apply to the first N attempts of an exchange
The same seed always gives the same bytes.

Dialects (--dialect NAME, or per request the header X-Mockllm-Dialect: NAME):
each reply is rewritten from its surface's canonical shape into that provider's
(Azure's empty first chunk, DeepSeek's reasoning_content, Gemini's index-less
tool calls and error array, ...); faults and --speed apply on top; the journal
entry names the dialect. A dialect rewrites replies of its own surface only
(chat, responses, messages, gemini): a reply of another surface is sent as
recorded and its journal entry has the finding dialect_other_surface.
`mockllm dialects` lists them; an unknown name in the header is 400
mockllm_unknown_dialect.

--proxy URL --record-to FILE: an unpinned request that matches nothing is
forwarded to URL, answered with its response and recorded, redacted, into FILE.
An upstream that fails (unreachable, silent past --upstream-timeout, a response
head over 64 KiB) is answered 502 mockllm_proxy_failed, naming why.
--cors ORIGIN|*: Access-Control-* headers on every answer and preflights answered.

Admin guard (so a web page cannot drive or read a local mockllm, DNS rebinding
included; the chat routes answer as always): an /__admin request is refused 403
when its Host names neither the listening address nor localhost, 127.0.0.1 or
[::1] (add names with --allow-host NAME), or when it carries an Origin that
--cors does not allow (any Origin without --cors); an admin POST (or a
write with a body) needs Content-Type: application/json (or
application/x-ndjson for JSON Lines), else 415:
  curl -X POST -H 'content-type: application/json' http://127.0.0.1:PORT/__admin/reset

Prints "listening on http://HOST:PORT" on stdout when ready; stops on SIGINT or
SIGTERM, writes the journal (--journal) and reports on stderr the unused
exchanges of every trace a request touched. Exit 0; 1 with --fail-on-unused
when a touched trace has unused exchanges or with --fail-on-mismatch when a
request matched nothing; 2 on a usage or input error.
See docs/mockllm.md.)";

std::string JournalText(const nlohmann::json& journal) {
  std::string out = "[";
  for (std::size_t i = 0; i < journal.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += DumpJson(journal[i]);
  }
  return out + (journal.empty() ? "]\n" : "\n]\n");
}

// Replay allocates and frees the same large buffers on every request; without
// this glibc trims and regrows each thread's heap every time (an madvise and an
// mprotect per request).
void KeepFreedMemory() {
  mallopt(M_TRIM_THRESHOLD, 64 * 1024 * 1024);
  mallopt(M_TOP_PAD, 1024 * 1024);
  mallopt(M_MMAP_THRESHOLD, 4 * 1024 * 1024);
}

// Exchange indices as ranges: [0,1,2,5,7,8] is "[0-2, 5, 7-8]".
std::string IndexRanges(const nlohmann::json& indices) {
  std::string out;
  for (std::size_t i = 0; i < indices.size();) {
    const auto first = indices[i].get<std::uint64_t>();
    std::size_t j = i + 1;
    while (j < indices.size() && indices[j].get<std::uint64_t>() == first + (j - i)) ++j;
    if (!out.empty()) out += ", ";
    out += j - i == 1 ? std::to_string(first)
                      : Format("{}-{}", first, indices[j - 1].get<std::uint64_t>());
    i = j;
  }
  return "[" + out + "]";
}

}  // namespace

void AddServe(CLI::App& cmd, ServeArgs& a) {
  cmd.add_option("--traces", a.traces, "Trace files, or directories searched for *.trace.jsonl")
      ->required()
      ->expected(1, -1);
  cmd.add_option("--host", a.host, "Address to bind")->capture_default_str();
  cmd.add_option("--port", a.port, "Port to bind (0: an ephemeral port)")->capture_default_str();
  cmd.add_option("--speed", a.speed,
                 "Multiply recorded gaps between chunks by F (0: no waiting, 1: as recorded)")
      ->check(CLI::NonNegativeNumber)
      ->capture_default_str();
  cmd.add_flag("--piecewise", a.piecewise,
               "At --speed 0, still write each recorded piece on its own (default: together)");
  cmd.add_option("--match", a.match,
                 "strict: exact; sdk: API defaults count as absent; lenient: a mismatched pinned "
                 "request is replayed and journaled (default: strict pinned, sdk on /v1)")
      ->check(CLI::IsMember({"strict", "sdk", "lenient"}));
  cmd.add_option("--session-by", a.session_by,
                 "What names a session: header (X-Mockllm-Session, else \"default\"), "
                 "client-address, none")
      ->check(CLI::IsMember({"header", "client-address", "none"}))
      ->capture_default_str();
  cmd.add_option("--cors", a.cors, "Allow browser clients from ORIGIN (or *)");
  cmd.add_option("--allow-host", a.allow_hosts,
                 "A Host name the admin API answers besides the listening address and "
                 "localhost (repeatable; e.g. the name a proxy or container reaches it by)");
  cmd.add_option("--proxy", a.proxy,
                 "Forward unpinned requests that match nothing to this upstream URL");
  cmd.add_option("--record-to", a.record_to, "Trace file that --proxy records into");
  cmd.add_option("--upstream-timeout", a.upstream_timeout,
                 "Seconds --proxy waits to connect and for the upstream's next bytes before "
                 "giving up (slow streams are never cut sooner)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_flag("--fail-on-unused", a.fail_on_unused,
               "Exit 1 at shutdown when a touched trace has unused exchanges");
  cmd.add_flag("--fail-on-mismatch", a.fail_on_mismatch,
               "Exit 1 at shutdown when any request matched nothing");
  cmd.add_option("--journal", a.journal, "Write the journal (a JSON array) to FILE on stop");
  cmd.add_option("--seed", a.seed, "Seed for faults that need randomness")->capture_default_str();
  cmd.add_option("--ignore", a.ignore,
                 "Request-body JSON pointer left out of matching ('*' matches any key)");
  cmd.add_option("--fault", a.faults, "Fault for every response: KEY[=VALUE] (see below)");
  cmd.add_option("--dialect", a.dialect,
                 "Rewrite replies into this provider's wire shape (mockllm dialects lists them)");
  cmd.add_option("--max-body", a.max_body, "Largest request body in bytes (larger: 413)")
      ->capture_default_str();
  cmd.add_option("--journal-limit", a.journal_limit,
                 "Journal entries kept (the oldest are dropped)")
      ->capture_default_str();
  cmd.add_option("--journal-max-bytes", a.journal_max_bytes,
                 "Bytes of text the journal's entries keep together (the oldest are dropped)")
      ->capture_default_str();
  cmd.add_flag("--journal-whole-bodies", a.journal_whole_bodies,
               "Keep request JSON bodies whole in the journal, long strings and all (for "
               "llmconform judge --journal; --journal-max-bytes still applies)");
  cmd.add_option("--max-sessions", a.max_sessions,
                 "Replay sessions kept (the least recently used are forgotten; counted in "
                 "/__admin/health and /__admin/sessions)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--threads", a.threads,
                 "Worker threads started at once: they run what may block (--proxy, the "
                 "admin API's streamed answers; timed replays are written from the event loop, "
                 "not by workers); more are added while all are busy, up to --max-connections, "
                 "and end after 30 s idle")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--max-connections", a.max_connections,
                 "Connections open at once; one more is answered 503 with Retry-After and "
                 "closed (an idle keep-alive connection holds no thread). The open-file limit "
                 "is raised to its hard limit at start, and this lowered to what it leaves "
                 "(said on stderr)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--read-timeout-ms", a.read_timeout_ms,
                 "A request's head must arrive whole within this of its first byte, and its "
                 "body without a pause this long; otherwise 408 and the connection is closed "
                 "(slowloris)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option("--write-timeout-ms", a.write_timeout_ms,
                 "A client that stops taking its answer for this long is disconnected (the "
                 "journal's outcome: client_disconnected)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  auto* metrics =
      cmd.add_flag("--metrics", a.metrics,
                   "Also serve the Prometheus metrics of GET /__admin/metrics at GET /metrics");
  cmd.add_flag("--no-metrics", a.no_metrics,
               "Count no metrics (GET /__admin/metrics answers 404); "
               "bench/mockllm_wrk-load.sh measures what counting costs")
      ->excludes(metrics);
  cmd.footer(kServeFooter);
}

int RunServe(const ServeArgs& a) {
  KeepFreedMemory();
  auto files = TraceFiles(a.traces);
  if (!files) return Diagnose(files.error().message), kExitUsage;
  std::vector<Trace> traces;
  for (const fs::path& f : *files) {
    auto t = LoadTraceFile(f);
    if (!t) return Diagnose(t.error().message), kExitUsage;
    traces.push_back(std::move(*t));
  }
  OJson fault = OJson::object();
  for (const std::string& flag : a.faults) {
    if (auto ok = AddFaultFlag(fault, flag); !ok) return Diagnose(ok.error().message), kExitUsage;
  }
  const std::size_t count = traces.size();
  // Every connection is a descriptor: the soft limit goes up to the hard one,
  // and --max-connections down to what that leaves (http_listener.h).
  int max_connections = a.max_connections;
  if (const OpenFileLimit files = RaiseOpenFileLimit(); files.now > 0) {
    const std::uint64_t in_use = OpenDescriptors();
    max_connections = ConnectionsWithin(a.max_connections, files.now, in_use);
    if (max_connections < a.max_connections) {
      std::cerr << Format(
                       "mockllm: --max-connections {} lowered to {}: the open-file limit is {} "
                       "({} open, {} kept free); raise the hard limit (ulimit -Hn) to serve more",
                       a.max_connections, max_connections, files.now, in_use, kReservedDescriptors)
                << std::endl;
    }
  }
  BlockStopSignals();
  const MatchMode both = a.match == "sdk" ? MatchMode::kSdk : MatchMode::kStrict;
  const SessionBy session_by = a.session_by == "none"             ? SessionBy::kNone
                               : a.session_by == "client-address" ? SessionBy::kClientAddress
                                                                  : SessionBy::kHeader;
  auto server = Server::Start(
      std::move(traces),
      ServerOptions{
          .listen = {.host = a.host,
                     .port = a.port,
                     .threads = a.threads,
                     .max_connections = max_connections,
                     .read_timeout_ms = a.read_timeout_ms,
                     .write_timeout_ms = a.write_timeout_ms,
                     .max_body_bytes = a.max_body},
          .speed = a.speed,
          .piecewise = a.piecewise,
          .strict = a.match != "lenient",
          .pinned_match = both,
          .unpinned_match = a.match == "strict" || a.match == "sdk" ? both : MatchMode::kSdk,
          .session_by = session_by,
          .ignore_paths = a.ignore,
          .fault = fault,
          .seed = a.seed,
          .journal_limit = a.journal_limit,
          .journal_max_bytes = a.journal_max_bytes,
          .journal_whole_bodies = a.journal_whole_bodies,
          .max_sessions = a.max_sessions,
          .cors = a.cors,
          .allow_hosts = a.allow_hosts,
          .proxy = a.proxy,
          .record_to = a.record_to,
          .proxy_timeout_seconds = a.upstream_timeout,
          .dialect = a.dialect,
          .metrics = a.metrics,
          .collect_metrics = !a.no_metrics});
  if (!server) return Diagnose(server.error().message), kExitUsage;
  for (const std::string& w : (*server)->Warnings()) Diagnose("warning: " + w);
  std::cerr << "mockllm: replaying " << count << " trace(s) at speed " << a.speed << ", "
            << (a.match.empty() ? "strict (pinned) and sdk (/v1)" : a.match) << " matching"
            << std::endl;
  AnnounceListening((*server)->base_url());
  const int sig = WaitForStopSignal();
  (*server)->Stop();
  const nlohmann::json journal = (*server)->Journal();
  std::cerr << "mockllm: stopped by " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << " after "
            << journal.size() << " journaled request(s)" << std::endl;
  // Read page by page, told as ranges ("[0-2999]"), and at most
  // kMaxUnusedListed sessions named: ten thousand sessions of a long trace
  // would be hundreds of MB.
  constexpr std::size_t kMaxUnusedListed = 100;
  std::size_t unused = 0;
  (*server)->ForEachSession([&unused](const nlohmann::json& s) {
    if (!s.value("touched", false) || s["unused"].empty()) return;
    if (++unused > kMaxUnusedListed) return;
    std::cerr << "mockllm: trace \"" << s["trace"].get<std::string>() << "\" "
              << (s["session"].is_null() ? std::string("on /v1")
                                         : "session \"" + s["session"].get<std::string>() + "\"")
              << ": unused exchanges " << IndexRanges(s["unused"]) << std::endl;
  });
  if (unused > kMaxUnusedListed) {
    std::cerr << "mockllm: … and " << unused - kMaxUnusedListed
              << " more session(s) with unused exchanges (GET /__admin/sessions)" << std::endl;
  }
  const std::uint64_t mismatches = (*server)->mismatches();
  if (mismatches > 0) {
    std::cerr << "mockllm: " << mismatches << " request(s) matched nothing (GET /__admin/unmatched)"
              << std::endl;
  }
  if (const std::uint64_t dropped = (*server)->journal_dropped(); dropped > 0) {
    std::cerr << "mockllm: the journal dropped its " << dropped
              << " oldest request(s) for --journal-limit or --journal-max-bytes; it holds the "
                 "newest "
              << journal.size() << std::endl;
  }
  if (!a.journal.empty()) {
    // Atomic: a reader (llmconform judge, CI) sees the whole journal or none.
    if (auto written = WriteFileAtomically(a.journal, JournalText(journal)); !written)
      return Diagnose(Format("cannot write the journal: {}", written.error().message)),
             kExitInternal;
  }
  if ((a.fail_on_unused && unused > 0) || (a.fail_on_mismatch && mismatches > 0)) return kExitFail;
  return kExitOk;
}

}  // namespace llmconform::mockllm
