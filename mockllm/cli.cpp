#include "mockllm/cli.h"

#include <malloc.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <iostream>
#include <sstream>

#include "mockllm/fault.h"
#include "mockllm/import_cli.h"
#include "mockllm/lint.h"
#include "mockllm/recorder.h"
#include "mockllm/server.h"
#include "protocols/wire/format.h"

#ifndef MOCKLLM_VERSION
#define MOCKLLM_VERSION "0.0.0"
#endif

namespace mockllm {
namespace {

using llmconform::Format;
namespace fs = std::filesystem;


void Diagnose(std::string_view message) { std::cerr << "mockllm: " << message << std::endl; }

// Blocks SIGINT and SIGTERM in this thread (and so in every thread started
// after it); WaitForStopSignal then takes them synchronously.
void BlockStopSignals() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &set, nullptr);
}

int WaitForStopSignal() {
  sigset_t set;
  sigemptyset(&set);
  sigaddset(&set, SIGINT);
  sigaddset(&set, SIGTERM);
  int sig = 0;
  sigwait(&set, &sig);
  return sig;
}

void AnnounceListening(const std::string& url) {
  std::cout << "listening on " << url << std::endl;  // endl flushes: scripts wait for this line
}

// ---- serve ----

struct ServeArgs {
  std::vector<std::string> traces;
  std::string host = "127.0.0.1";
  int port = 0;
  double speed = 1;
  bool piecewise = false;
  std::string match = "strict";
  std::string journal;
  std::uint64_t seed = 0;
  std::vector<std::string> ignore;
  std::vector<std::string> faults;
  std::size_t max_body = 16 * 1024 * 1024;
  std::size_t journal_limit = 10000;
  int threads = 32;
};

constexpr std::string_view kServeFooter = R"(
Routes:
  POST|GET /t/{trace-id}/v1/...  pinned replay of one trace (id URL-encoded); the
                                 header X-Mockllm-Session names a session
  POST|GET /v1/...               unpinned: any trace's exchange with an equal request
  GET [/t/{id}]/v1/models        the models named in the loaded traces
  GET /__admin/health | /__admin/journal | /__admin/sessions, POST /__admin/reset

Replay: in a session the Nth request is compared with the Nth recorded request
(JSON compared as values, --ignore paths left out) and answered with the Nth
response. A stream is written in its recorded pieces, each at its recorded time
multiplied by --speed; at --speed 0 nothing waits and the pieces go out together
(--piecewise: one by one), except a resplit fault's pieces, always one by one. Errors, in OpenAI's {"error":{...}} form: mockllm_request_mismatch
(400; "pointer", "expected", "actual"), mockllm_trace_exhausted (400),
mockllm_no_match (404), mockllm_unknown_trace (404); malformed JSON 400, wrong
content type 415, body over --max-body 413, unknown route 404.

Journal findings (rule): request_mismatch, trace_exhausted, no_match,
unknown_trace, malformed_request, client_disconnected.

Faults (--fault KEY[=VALUE], or an exchange's "fault" object; VALUE is JSON):
  status=N body=.. retry_after=S retry_after_ms=MS headers={..}   answer HTTP N
  delay_ms=N            wait before the first byte
  cut_after_bytes=N     close the connection after N body bytes
  cut_after_events=N    close it after N SSE events
  drop_done             leave out data: [DONE]
  malformed_event=K     replace event K (0-based) with broken JSON
  resplit [seed=S]      re-split the stream into random pieces (same bytes)
  crlf                  CRLF line ends          bom     a UTF-8 BOM first
  keepalive_ms=N        ': keep-alive' comments every N ms of the recorded timeline
  error_event='{"after_events":K,"error":{..}}'  an error event after HTTP 200
  stall_ms=N [stall_after_events=K]   stop sending for N ms (past a client timeout)
The same seed always gives the same bytes.

Prints "listening on http://HOST:PORT" on stdout when ready; stops on SIGINT or
SIGTERM, writes the journal (--journal) and reports unused exchanges on stderr.)";

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
                 "strict: a mismatched request gets an error; lenient: replayed, journaled")
      ->check(CLI::IsMember({"strict", "lenient"}))
      ->capture_default_str();
  cmd.add_option("--journal", a.journal, "Write the journal (a JSON array) to FILE on stop");
  cmd.add_option("--seed", a.seed, "Seed for faults that need randomness")->capture_default_str();
  cmd.add_option("--ignore", a.ignore,
                 "Request-body JSON pointer left out of matching ('*' matches any key)");
  cmd.add_option("--fault", a.faults, "Fault for every response: KEY[=VALUE] (see below)");
  cmd.add_option("--max-body", a.max_body, "Largest request body in bytes (larger: 413)")
      ->capture_default_str();
  cmd.add_option("--journal-limit", a.journal_limit,
                 "Journal entries kept (the oldest are dropped)")
      ->capture_default_str();
  cmd.add_option("--threads", a.threads, "Connections served at once")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.footer(std::string(kServeFooter));
}

std::string JournalText(const nlohmann::json& journal) {
  std::string out = "[";
  for (std::size_t i = 0; i < journal.size(); ++i) {
    out += i ? ",\n" : "\n";
    out += journal[i].dump(-1, ' ', false, nlohmann::json::error_handler_t::replace);
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
  BlockStopSignals();
  auto server = Server::Start(std::move(traces), ServerOptions{.host = a.host,
                                                               .port = a.port,
                                                               .speed = a.speed,
                                                               .piecewise = a.piecewise,
                                                               .strict = a.match == "strict",
                                                               .ignore_paths = a.ignore,
                                                               .fault = fault,
                                                               .seed = a.seed,
                                                               .max_body_bytes = a.max_body,
                                                               .journal_limit = a.journal_limit,
                                                               .threads = a.threads});
  if (!server) return Diagnose(server.error().message), kExitUsage;
  std::cerr << "mockllm: replaying " << count << " trace(s) at speed " << a.speed << ", " << a.match
            << " matching" << std::endl;
  AnnounceListening((*server)->base_url());
  const int sig = WaitForStopSignal();
  (*server)->Stop();
  const nlohmann::json journal = (*server)->Journal();
  std::cerr << "mockllm: stopped by " << (sig == SIGINT ? "SIGINT" : "SIGTERM") << " after "
            << journal.size() << " journaled request(s)" << std::endl;
  for (const auto& s : (*server)->Sessions()) {
    if (s["unused"].empty()) continue;
    std::cerr << "mockllm: trace \"" << s["trace"].get<std::string>() << "\" session "
              << (s["session"].is_null() ? std::string("(none)")
                                         : "\"" + s["session"].get<std::string>() + "\"")
              << ": unused exchanges " << s["unused"].dump() << std::endl;
  }
  if (!a.journal.empty()) {
    std::ofstream out(a.journal, std::ios::binary | std::ios::trunc);
    out << JournalText(journal);
    if (!out.flush())
      return Diagnose(Format("{}: cannot write the journal", a.journal)), kExitInternal;
  }
  return kExitOk;
}

// ---- lint ----

struct LintArgs {
  std::vector<std::string> traces;
};

void AddLint(CLI::App& cmd, LintArgs& a) {
  cmd.add_option("TRACE", a.traces, "Trace files, or directories searched for *.trace.jsonl")
      ->required();
  cmd.footer(R"(
Prints one problem a line on stdout, "FILE:LINE:COL: JSON-POINTER: what": format
errors of llmconform-trace/1, and anything that looks like a secret (sk-... keys,
Bearer tokens, values of authorization, api-key, x-api-key, cookie and set-cookie
headers or keys). Exit 0 when clean, 1 when there are problems, 2 when a file
cannot be read.)");
}

int RunLint(const LintArgs& a) {
  auto files = TraceFiles(a.traces);
  if (!files) return Diagnose(files.error().message), kExitUsage;
  std::size_t problems = 0;
  std::size_t bad_files = 0;
  for (const fs::path& f : *files) {
    std::ifstream in(f, std::ios::binary);
    if (!in) return Diagnose(Format("{}: cannot open", f.string())), kExitUsage;
    std::ostringstream text;
    text << in.rdbuf();
    const auto found = LintTrace(text.str(), f.string());
    for (const std::string& p : found) std::cout << p << '\n';
    problems += found.size();
    bad_files += found.empty() ? 0 : 1;
  }
  std::cout.flush();
  if (problems == 0) {
    std::cerr << "mockllm lint: " << files->size() << " trace(s) clean" << std::endl;
    return kExitOk;
  }
  std::cerr << "mockllm lint: " << problems << " problem(s) in " << bad_files << " of "
            << files->size() << " trace(s)" << std::endl;
  return kExitProblems;
}

// ---- record ----

struct RecordArgs {
  std::string upstream;
  std::string out;
  std::string host = "127.0.0.1";
  int port = 0;
  std::vector<std::string> redact_headers;
  std::vector<std::string> redact_json;
  std::string id;
  std::string provider;
  std::string model;
  std::string notes;
  int upstream_timeout = 600;
  std::string upstream_ca;
  bool append = false;
  std::size_t max_body = 16 * 1024 * 1024;
};

void AddRecord(CLI::App& cmd, RecordArgs& a) {
  cmd.add_option("--upstream", a.upstream, "Endpoint to forward to: http(s)://HOST[:PORT][/PREFIX]")
      ->required();
  cmd.add_option("--out", a.out,
                 "Trace file to write (each exchange appended and flushed as it ends)")
      ->required();
  cmd.add_option("--host", a.host, "Address to bind")->capture_default_str();
  cmd.add_option("--port", a.port, "Port to bind (0: an ephemeral port)")->capture_default_str();
  cmd.add_option("--redact-header", a.redact_headers,
                 "Header whose value is never written (besides the built-in ones)");
  cmd.add_option("--redact-json", a.redact_json,
                 "JSON pointer in request and response bodies whose value is never written");
  cmd.add_option("--id", a.id, "Trace id (default: the file name without .trace.jsonl)");
  cmd.add_option("--provider", a.provider, "Header field provider");
  cmd.add_option("--model", a.model, "Header field model");
  cmd.add_option("--notes", a.notes, "Header field notes");
  cmd.add_option("--upstream-timeout", a.upstream_timeout,
                 "Seconds to wait for the upstream's next bytes before giving up (slow streams are "
                 "never cut sooner)")
      ->check(CLI::PositiveNumber)
      ->capture_default_str();
  cmd.add_option(
         "--upstream-ca", a.upstream_ca,
         "PEM file of CA certificates trusted for an https upstream (default: the system's)")
      ->check(CLI::ExistingFile);
  cmd.add_flag("--append", a.append, "Add to an existing trace instead of refusing to touch it");
  cmd.add_option("--max-body", a.max_body, "Largest request body in bytes (larger: 413)")
      ->capture_default_str();
  cmd.footer(R"(
Point a client's base URL at http://HOST:PORT/v1 (or wherever the upstream's API
lives under it). Requests are forwarded as they come, answers streamed back as
the bytes arrive, and every finished exchange appended to --out. Never written:
authorization, proxy-authorization, api-key, x-api-key, x-goog-api-key, cookie,
set-cookie values, --redact-header and --redact-json values, and sk-... keys or
Bearer tokens anywhere. Prints "listening on http://HOST:PORT" on stdout when
ready; stops on SIGINT or SIGTERM.)");
}

int RunRecord(const RecordArgs& a) {
  OJson header = OJson::object();
  if (!a.provider.empty()) header["provider"] = a.provider;
  if (!a.model.empty()) header["model"] = a.model;
  if (!a.notes.empty()) header["notes"] = a.notes;
  BlockStopSignals();
  auto recorder = Recorder::Start(RecorderOptions{.upstream = a.upstream,
                                                  .out = a.out,
                                                  .append = a.append,
                                                  .host = a.host,
                                                  .port = a.port,
                                                  .redact_headers = a.redact_headers,
                                                  .redact_json = a.redact_json,
                                                  .trace_id = a.id,
                                                  .header_fields = header,
                                                  .upstream_timeout_seconds = a.upstream_timeout,
                                                  .upstream_ca_file = a.upstream_ca,
                                                  .max_body_bytes = a.max_body});
  if (!recorder) return Diagnose(recorder.error().message), kExitUsage;
  std::cerr << "mockllm: recording " << a.upstream << " to " << a.out << std::endl;
  AnnounceListening((*recorder)->base_url());
  WaitForStopSignal();
  (*recorder)->Stop();
  std::cerr << "mockllm: recorded " << (*recorder)->exchanges_written() << " exchange(s) to "
            << a.out << std::endl;
  return kExitOk;
}

}  // namespace

int RunCli(int argc, char** argv) {
  // A client that goes away mid-response must not end the process.
  signal(SIGPIPE, SIG_IGN);
  CLI::App app{
      "mockllm: replays recorded OpenAI-compatible chat traffic byte for byte, records it, breaks "
      "it on\n"
      "purpose, and journals every request.",
      "mockllm"};
  app.set_version_flag("--version", std::string("mockllm ") + MOCKLLM_VERSION);
  app.require_subcommand(1);

  ServeArgs serve;
  LintArgs lint;
  RecordArgs record;
  ImportArgs import_args;
  ExportArgs export_args;
  struct Command {
    const char* name;
    const char* description;
    std::function<void(CLI::App&)> add;
    std::function<int()> run;
  };
  const std::vector<Command> commands = {
      {"serve", "Replay traces as an OpenAI-compatible server",
       [&](CLI::App& c) { AddServe(c, serve); }, [&] { return RunServe(serve); }},
      {"lint", "Check traces for format errors and secrets", [&](CLI::App& c) { AddLint(c, lint); },
       [&] { return RunLint(lint); }},
      {"record", "Record a trace through a proxy to a real endpoint",
       [&](CLI::App& c) { AddRecord(c, record); }, [&] { return RunRecord(record); }},
      {"import", "Turn vcrpy cassettes and HAR files into traces",
       [&](CLI::App& c) { AddImport(c, import_args); }, [&] { return RunImport(import_args); }},
      {"export", "Write traces as HAR 1.2",
       [&](CLI::App& c) { AddExport(c, export_args); }, [&] { return RunExport(export_args); }},
  };
  std::vector<CLI::App*> subs;
  for (const Command& c : commands) {
    CLI::App* sub = app.add_subcommand(c.name, c.description);
    c.add(*sub);
    subs.push_back(sub);
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  try {
    for (std::size_t i = 0; i < commands.size(); ++i) {
      if (subs[i]->parsed()) return commands[i].run();
    }
  } catch (const std::exception& e) {
    Diagnose(Format("internal error: {}", e.what()));
    return kExitInternal;
  }
  return kExitUsage;
}

}  // namespace mockllm
