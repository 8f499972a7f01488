// `llmconform probe`'s run: validates the arguments, sends the battery,
// records the exchanges, and reports the row through reports/probe_row.h
// (harness/probe.h states the contract).
#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <filesystem>
#include <iostream>
#include <map>
#include <set>

#include "base/atomic_file.h"
#include "base/exit_code.h"
#include "base/format.h"
#include "base/json_fields.h"
#include "base/url.h"
#include "base/utf8.h"
#include "harness/dialect_cmd.h"
#include "harness/probe.h"
#include "harness/probe_support.h"
#include "mockllm/dialect_rewrite.h"
#include "mockllm/redaction.h"
#include "mockllm/secrets.h"
#include "reports/probe_row.h"

#ifndef LLMCONFORM_VERSION
#define LLMCONFORM_VERSION "0.0.0"
#endif

namespace llmconform::harness {
namespace {

using probe_support::IsStream;
using probe_support::ScrubKey;
using probe_support::Snippet;

// The reply as it may be recorded: the key must never reach a recording, not
// even when an endpoint echoes it back, so every piece and header loses it
// (ScrubKey), and a key split across two pieces merges them. The reply is
// judged as received; only what is printed or recorded is scrubbed.
ProbeReply ScrubbedReply(ProbeReply reply, std::string_view key) {
  if (key.empty()) return reply;
  for (auto& [name, value] : reply.headers) value = ScrubKey(value, key);
  if (reply.error) reply.error = ScrubKey(*reply.error, key);
  const std::string body = reply.Body();
  const std::string scrubbed = ScrubKey(body, key);
  if (scrubbed == body) return reply;
  for (auto& p : reply.pieces) p.raw = ScrubKey(std::move(p.raw), key);
  if (reply.Body() != scrubbed) {
    mockllm::Chunk all{reply.pieces.empty() ? 0 : reply.pieces.back().t_ms, scrubbed};
    reply.pieces = {std::move(all)};
    reply.joined_reads = 0;
  }
  return reply;
}

const std::set<std::string>& FeatureSet() {
  static const std::set<std::string> s(ProbeFeatures().begin(), ProbeFeatures().end());
  return s;
}

std::string JoinNames(const std::vector<std::string>& v) {
  std::string out;
  for (const auto& s : v) out += (out.empty() ? "" : ", ") + s;
  return out;
}

// What the run needs once the arguments are checked.
struct ProbePlan {
  wire::Surface surface = wire::Surface::kChat;
  std::string origin_path;  // the base URL, without the surface's request path
  std::string path;         // the URL's path
  std::set<std::string> wanted;
  std::string key;
  std::string provider;
  std::string endpoint;  // for output: redacted
  const mockllm::Dialect* expect = nullptr;
};

std::string HostOf(const std::string& origin) {
  std::string host = origin.substr(origin.find("//") + 2);
  if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
  if (auto colon = host.rfind(':');
      colon != std::string::npos && host.find(']') == std::string::npos)
    host.resize(colon);
  return host;
}

// Gemini names the model in the request path: a name that would change the
// path (a '/', '?', '#', ':', '%', a space or a control character) is refused.
bool PathSafeModel(std::string_view model) {
  return std::all_of(model.begin(), model.end(), [](unsigned char c) {
    return c > 0x20 && c != 0x7f &&
           std::string_view("/?#:%").find(static_cast<char>(c)) == std::string_view::npos;
  });
}

std::string SurfaceNames() {
  std::string out;
  for (wire::Surface s : wire::AllSurfaces())
    out += (out.empty() ? "" : ", ") + std::string(wire::SurfaceName(s));
  return out;
}

// The plan, or the usage error already printed.
std::optional<ProbePlan> Plan(const ProbeArgs& a) {
  const std::optional<wire::Surface> surface = wire::SurfaceFromName(a.api);
  if (!surface) {
    std::cerr << "llmconform probe: --api: unknown API \"" << Snippet(a.api)
              << "\" (known: " << SurfaceNames() << ")\n";
    return std::nullopt;
  }
  auto url = SplitHttpUrl(a.base_url);
  if (!url) {
    std::cerr << "llmconform probe: --base-url \"" << Snippet(a.base_url)
              << "\": not an http(s) URL with a host (e.g. https://api.openai.com/v1)\n";
    return std::nullopt;
  }
  if (a.model.empty() || !IsValidUtf8(a.model) || !IsValidUtf8(a.provider)) {
    std::cerr << "llmconform probe: "
              << (a.model.empty() || !IsValidUtf8(a.model) ? "--model" : "--provider")
              << ": expected a non-empty name in UTF-8\n";
    return std::nullopt;
  }
  if (*surface == wire::Surface::kGemini && !PathSafeModel(a.model)) {
    std::cerr << "llmconform probe: --model \"" << Snippet(a.model)
              << "\": the Gemini API names the model in the path; expected a name without '/', "
                 "'?', '#', ':', '%' or spaces (e.g. gemini-2.5-flash)\n";
    return std::nullopt;
  }
  ProbePlan plan;
  plan.surface = *surface;
  for (const std::string& f : a.features) {
    if (!FeatureSet().contains(f)) {
      std::cerr << "llmconform probe: --features: unknown feature \"" << Snippet(f)
                << "\" (known: " << JoinNames(ProbeFeatures()) << ")\n";
      return std::nullopt;
    }
    plan.wanted.insert(f);
  }
  if (!a.expect.empty()) {
    plan.expect = mockllm::FindDialect(a.expect);
    if (plan.expect == nullptr) {
      std::cerr << "llmconform probe: --expect: unknown dialect \"" << Snippet(a.expect)
                << "\" (known: " << mockllm::DialectNames() << ")\n";
      return std::nullopt;
    }
    if (const std::string_view s = wire::SurfaceName(plan.expect->surface); s != a.api) {
      std::cerr << "llmconform probe: --expect: dialect \"" << plan.expect->name
                << "\" is a dialect of the " << s << " API, not of --api " << a.api << "\n";
      return std::nullopt;
    }
    if (!plan.wanted.empty()) {
      std::cerr << "llmconform probe: --expect compares the deviations of the whole battery; "
                   "drop --features\n";
      return std::nullopt;
    }
  }
  if (plan.wanted.empty()) plan.wanted = FeatureSet();
  const std::string key_env =
      a.api_key_env.empty() ? std::string(DefaultKeyEnv(plan.surface)) : a.api_key_env;
  if (const char* k = std::getenv(key_env.c_str())) plan.key = k;
  if (std::any_of(plan.key.begin(), plan.key.end(),
                  [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    std::cerr << "llmconform probe: the value of $" << key_env
              << " contains a control character; it is not sent\n";
    return std::nullopt;
  }
  if (plan.key.empty()) {
    std::cerr << "llmconform probe: $" << key_env << " is not set; probing without a key\n";
  }
  plan.provider = a.provider.empty() ? HostOf(url->origin) : a.provider;
  plan.origin_path = url->origin + url->path;
  plan.path = url->path;
  plan.endpoint = mockllm::RedactText(ScrubKey(a.base_url, plan.key));
  return plan;
}

// The reply to `item` as a one-exchange trace, redacted.
mockllm::Trace ReplyTrace(const ProbeArgs& a, const ProbePlan& plan, const ProbeItem& item,
                          const std::vector<std::pair<std::string, std::string>>& headers,
                          const std::string& body, const ProbeReply& reply,
                          const std::string& request_path) {
  static const mockllm::Redactor redactor;
  mockllm::Trace trace;
  trace.id = plan.provider + "/probe-" + item.name;
  trace.header = {
      {"format", mockllm::kTraceFormat},
      {"id", trace.id},
      {"origin", "recorded"},
      {"recorded_at", UtcTimestamp(std::time(nullptr))},
      {"upstream", plan.endpoint},
      {"provider", plan.provider},
      {"model", a.model},
      {"notes", Format("request `{}` of llmconform probe (feature {})", item.name, item.feature)}};
  if (plan.surface != wire::Surface::kChat)
    trace.header["surface"] = std::string(wire::SurfaceName(plan.surface));
  // As `mockllm record` keeps a request: the path without its query, the
  // query beside it (Gemini's `alt=sse`).
  const std::size_t q = request_path.find('?');
  const std::string path_only = request_path.substr(0, q);
  mockllm::Exchange x = redactor.Record(mockllm::WireExchange{.method = "POST",
                                                              .path = plan.path + path_only,
                                                              .request_headers = headers,
                                                              .request_body = body,
                                                              .status = reply.status,
                                                              .response_headers = reply.headers,
                                                              .pieces = reply.pieces,
                                                              .streamed = IsStream(reply),
                                                              .complete = !reply.error,
                                                              .joined_reads = reply.joined_reads});
  if (q != std::string::npos) x.request.extra["query"] = request_path.substr(q + 1);
  x.seq = 1;
  trace.exchanges.push_back(std::move(x));
  return trace;
}

// Sends `item`, judges the reply, records it under --record. Error: the
// recording could not be written (already printed).
std::optional<ProbeItemResult> ProbeOne(const ProbeArgs& a, const ProbePlan& plan,
                                        const ProbeItem& item, net::HttpClient& http) {
  const std::string body = item.body.dump();
  std::vector<std::pair<std::string, std::string>> headers = {
      {"content-type", "application/json"},
      {"accept", item.stream ? "text/event-stream" : "application/json"},
      {"accept-encoding", "identity"},
      {"user-agent", "llmconform-probe/" LLMCONFORM_VERSION}};
  for (auto& h : ProbeAuthHeaders(plan.surface, plan.key)) headers.push_back(std::move(h));
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(a.timeout_s * 1000));
  const std::string request_path = ProbeRequestPath(item, a.model);
  const ProbeReply reply = ProbePost(http, plan.origin_path + request_path, headers, body, timeout);

  std::vector<wire::Deviation> deviations;
  const std::string file = Format("{}.trace.jsonl", item.name);
  if (reply.status > 0) {
    // A reply that broke off shows what breaking off looks like, not a dialect.
    if (!reply.error) {
      const mockllm::Trace trace = ReplyTrace(a, plan, item, headers, body, reply, request_path);
      for (auto& row : TraceDialects(trace, file)) {
        for (auto& d : row.deviations) deviations.push_back(std::move(d));
      }
    }
    if (!a.record_dir.empty()) {
      const mockllm::Trace trace =
          ReplyTrace(a, plan, item, headers, body, ScrubbedReply(reply, plan.key), request_path);
      const std::filesystem::path path = std::filesystem::path(a.record_dir) / file;
      if (auto w = WriteFileAtomically(path, ScrubKey(mockllm::WriteTrace(trace), plan.key)); !w) {
        std::cerr << "llmconform probe: " << w.error().message << '\n';
        return std::nullopt;
      }
    }
  } else if (!a.record_dir.empty()) {
    std::cerr << "llmconform probe: " << item.name << " not recorded: no answer\n";
  }
  return JudgeProbeReply(item, reply, deviations);
}

reports::ProbeRow Row(const ProbePlan& plan, const std::string& model,
                      const std::vector<ProbeItemResult>& results) {
  reports::ProbeRow row{.endpoint = plan.endpoint,
                        .model = model,
                        .api = std::string(wire::SurfaceName(plan.surface))};
  for (const std::string& f : ProbeFeatures()) {
    reports::ProbeFeatureRow feature{.feature = f};
    std::vector<ProbeOutcome> outcomes;
    for (const ProbeItemResult& r : results) {
      if (r.feature != f) continue;
      outcomes.push_back(r.outcome);
      feature.requests.push_back({.request = r.name,
                                  .result = std::string(OutcomeName(r.outcome)),
                                  .status = r.status,
                                  .streamed = r.streamed,
                                  .ms = r.ms,
                                  .detail = r.detail});
    }
    if (outcomes.empty()) continue;
    feature.outcome = OutcomeName(CombineOutcomes(outcomes));
    row.features.push_back(std::move(feature));
  }
  std::map<std::string, std::vector<reports::ProbeDeviationSeen>> by_id;
  for (const ProbeItemResult& r : results)
    for (const wire::Deviation& d : r.deviations)
      by_id[d.id].push_back({.request = r.name, .where = d.where, .message = d.message});
  for (auto& [id, seen] : by_id) row.deviations.push_back({.id = id, .seen = std::move(seen)});
  return row;
}

// The row's deviations against `dialect`'s: the probe of a stand-in endpoint
// speaking `dialect` (`mockllm serve --traces fixtures/probe --dialect NAME`)
// shows exactly its steps' ids, so any difference is a change of the wire.
// Only the catalogue's DIA-* ids are compared: a contract finding of a
// surface's reader (RESP-*, MSG-*, GEM-*) may be the very trace a dialect's
// deviation leaves, so it is shown in the row but is no drift by itself.
reports::ProbeExpectation Expect(const mockllm::Dialect& dialect, const reports::ProbeRow& row) {
  reports::ProbeExpectation e{.dialect = dialect.name};
  const std::vector<std::string> ids = dialect.Ids();
  const std::set<std::string> want(ids.begin(), ids.end());
  std::set<std::string> seen;
  for (const auto& d : row.deviations)
    if (d.id.starts_with("DIA-")) seen.insert(d.id);
  for (const std::string& id : seen) {
    if (want.contains(id)) continue;
    (dialect.not_reproduced.contains(id) ? e.known : e.appeared).push_back(id);
  }
  for (const std::string& id : want)
    if (!seen.contains(id)) e.vanished.push_back(id);
  return e;
}

}  // namespace

void SetupProbe(CLI::App& app, ProbeArgs& a) {
  app.add_option("--api", a.api,
                 "the API surface probed: chat (URL/chat/completions), responses "
                 "(URL/responses), messages (URL/messages, Anthropic), gemini "
                 "(URL/models/MODEL:generateContent and :streamGenerateContent?alt=sse)")
      ->capture_default_str();
  app.add_option("--base-url", a.base_url,
                 "the endpoint's base URL, e.g. https://api.openai.com/v1, "
                 "http://127.0.0.1:11434/v1, https://api.anthropic.com/v1 or "
                 "https://generativelanguage.googleapis.com/v1beta")
      ->required();
  app.add_option("--model", a.model, "the model every request names")->required();
  app.add_option("--api-key-env", a.api_key_env,
                 "environment variable holding the API key (default by --api: OPENAI_API_KEY, "
                 "ANTHROPIC_API_KEY, GEMINI_API_KEY), sent as `Authorization: Bearer` (chat, "
                 "responses), `x-api-key` (messages) or `x-goog-api-key` (gemini); unset or "
                 "empty: no key is sent");
  app.add_option(
         "--features", a.features,
         "probe only these features (comma-separated or repeated): " + JoinNames(ProbeFeatures()))
      ->delimiter(',');
  app.add_option("--record", a.record_dir,
                 "write each exchange as a redacted trace DIR/NAME.trace.jsonl "
                 "(llmconform-trace/1; replaces files of the same name)");
  app.add_option("--provider", a.provider,
                 "provider label of recorded traces (default: the URL's host); trace ids are "
                 "PROVIDER/probe-NAME");
  app.add_option("--timeout", a.timeout_s, "seconds each request may take")
      ->capture_default_str()
      ->check(CLI::PositiveNumber);
  app.add_option("--expect", a.expect,
                 "the dialect you believe the endpoint speaks (a name of `mockllm dialects`, a "
                 "dialect of the --api surface): exit 1 naming each DIA-* deviation that "
                 "appeared or vanished against it (the whole battery; not with --features)");
  app.add_flag("--json", a.json,
               "print the row as JSON: {endpoint, model, api, features: {NAME: "
               "pass|fail|unsupported}, deviations: [DIA-…, RESP-…], evidence: {features, "
               "deviations}}");
  app.footer(
      "Sends a fixed battery of requests of one API surface (--api) to an endpoint and prints\n"
      "its row of the provider matrix (the same requests on every surface, written as its own\n"
      "clients write them; Chat's are shown):\n"
      "  plain                plain-text           a non-streamed answer\n"
      "  stream               streamed-text        a streamed answer\n"
      "  stream-usage         usage                stream_options.include_usage\n"
      "  tool                 tool-call            one tool call (tool get_weather)\n"
      "  parallel-tools       parallel-tool-calls  two tool calls in one turn\n"
      "  streamed-tools       streamed-tool-calls  tool calls in a stream\n"
      "  reasoning            reasoning            reasoning_effort; reasoning text shown?\n"
      "  invalid-request      error-mapping        empty messages (responses: temperature -1,\n"
      "                                            messages: no max_tokens, gemini: no\n"
      "                                            contents): the error shape\n"
      "  rate-limited, server-error-stream  error-mapping: answered normally by a live\n"
      "                       endpoint; the stand-in below answers 429 and a streamed 500\n"
      "A feature passes when a careful client (llmconform's reference readers) gets what was\n"
      "asked; it is unsupported when the endpoint refuses the request (HTTP 400/422) or does\n"
      "not do it (no reasoning text, one tool call where two were asked); it fails otherwise\n"
      "(network error, timeout, non-JSON answer, broken stream, wrong status), with the\n"
      "evidence. Deviations are the DIA-* ids of specs/wire/dialects.json that `llmconform\n"
      "dialect` finds in the replies, each with the response and field that shows it; on the\n"
      "responses, messages and gemini surfaces also the located findings (RESP-*, MSG-*,\n"
      "GEM-* of specs/wire/rules.json) of the surface's reader, which judges the features.\n"
      "The key is read from the environment only, and is never printed or recorded (a key\n"
      "shorter than 16 bytes, a placeholder such as `x`, is removed only where it stands "
      "alone).\n\n"
      "Examples:\n"
      "  OPENAI_API_KEY=… llmconform probe --base-url https://api.openai.com/v1 --model "
      "gpt-4o-mini\n"
      "  llmconform probe --base-url http://127.0.0.1:11434/v1 --model qwen3 --record "
      "fixtures/ollama-probe\n"
      "  ANTHROPIC_API_KEY=… llmconform probe --api messages --base-url "
      "https://api.anthropic.com/v1 \\\n"
      "      --model claude-sonnet-4-5\n"
      "  GEMINI_API_KEY=… llmconform probe --api gemini \\\n"
      "      --base-url https://generativelanguage.googleapis.com/v1beta --model gemini-2.5-flash\n"
      "  llmconform probe --api responses --base-url https://api.openai.com/v1 --model gpt-5-mini\n"
      "  mockllm serve --traces fixtures/probe --dialect gemini   # a stand-in endpoint\n"
      "      (fixtures/probe/{responses,messages,gemini}/ hold the other surfaces' answers)\n"
      "  llmconform probe --base-url http://127.0.0.1:PORT/v1 --model gpt-4o-mini --json\n"
      "  llmconform probe --base-url https://generativelanguage.googleapis.com/v1beta/openai \\\n"
      "      --model gemini-2.5-flash --api-key-env GEMINI_API_KEY --expect gemini   # drift\n\n"
      "Exit codes: 0 no probed feature failed (and, with --expect, the deviations are the\n"
      "dialect's), 1 some failed or a deviation appeared or vanished, 2 usage or input error,\n"
      "3 a recording could not be written. docs/dialects.md describes the battery and the JSON.");
}

int RunProbe(const ProbeArgs& a, net::HttpClient& http) {
  const std::optional<ProbePlan> plan = Plan(a);
  if (!plan) return kExitUsage;
  std::vector<ProbeItemResult> results;
  for (const ProbeItem& item : ProbeBattery(plan->surface, a.model)) {
    if (!plan->wanted.contains(item.feature)) continue;
    std::optional<ProbeItemResult> r = ProbeOne(a, *plan, item, http);
    if (!r) return kExitInternal;
    results.push_back(std::move(*r));
  }
  reports::ProbeRow row = Row(*plan, a.model, results);
  if (plan->expect) row.expectation = Expect(*plan->expect, row);
  const bool any_fail = std::any_of(row.features.begin(), row.features.end(),
                                    [](const auto& f) { return f.outcome == "fail"; });
  const bool drifted = row.expectation && row.expectation->Drifted();
  std::string text = a.json ? reports::ProbeRowJson(row) : reports::ProbeRowText(row);
  std::cout << mockllm::RedactText(ScrubKey(std::move(text), plan->key)) << std::flush;
  return any_fail || drifted ? kExitFail : kExitOk;
}

}  // namespace llmconform::harness
