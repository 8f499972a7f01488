#include "harness/probe.h"

#include <algorithm>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <map>
#include <set>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "base/url.h"
#include "base/utf8.h"
#include "harness/dialect_cmd.h"
#include "base/atomic_file.h"
#include "mockllm/redaction.h"
#include "mockllm/secrets.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/stream_accumulator.h"

#ifndef LLMCONFORM_VERSION
#define LLMCONFORM_VERSION "0.0.0"
#endif

namespace llmconform::harness {
namespace {

constexpr int kExitOk = 0;
constexpr int kExitFail = 1;
constexpr int kExitUsage = 2;
constexpr int kExitInternal = 3;

// ---- the battery (fixtures/probe/generate.py writes the same requests) ----

OJson User(std::string_view text) {
  return OJson::array({OJson{{"role", "user"}, {"content", text}}});
}

OJson WeatherTools() {
  OJson params = {{"type", "object"},
                  {"properties", {{"city", {{"type", "string"}}}}},
                  {"required", OJson::array({"city"})},
                  {"additionalProperties", false}};
  OJson fn = {{"name", "get_weather"},
              {"description", "Current weather of a city."},
              {"parameters", std::move(params)}};
  return OJson::array({OJson{{"type", "function"}, {"function", std::move(fn)}}});
}

OJson Request(const std::string& model, OJson messages) {
  return OJson{{"model", model}, {"messages", std::move(messages)}};
}

// ---- small text helpers ----

// At most `max` bytes of `text` as one readable line: valid UTF-8, control
// characters escaped, "…" when cut.
std::string Snippet(std::string_view text, std::size_t max = 80) {
  const std::size_t n = Utf8Prefix(text, std::min(max, text.size()));
  std::string out;
  for (char c : ToValidUtf8(text.substr(0, n))) {
    if (c == '\n') {
      out += "\\n";
    } else if (c == '\r') {
      out += "\\r";
    } else if (static_cast<unsigned char>(c) < 0x20) {
      out += Format("\\x{:02x}", static_cast<unsigned char>(c));
    } else {
      out += c;
    }
  }
  if (n < text.size()) out += "…";
  return out;
}

std::string Quoted(std::string_view text) { return "\"" + Snippet(text) + "\""; }

// `text` with every occurrence of `secret` replaced by "[redacted]".
std::string ReplaceAll(std::string text, std::string_view secret) {
  if (secret.empty()) return text;
  for (std::size_t at = text.find(secret); at != std::string::npos;
       at = text.find(secret, at + 10)) {
    text.replace(at, secret.size(), "[redacted]");
  }
  return text;
}

// The key must never reach the output or a recording, not even when an
// endpoint echoes it back: every piece and header of a reply loses it, and a
// key split across two pieces merges them.
void ScrubReply(ProbeReply& reply, std::string_view key) {
  if (key.empty()) return;
  for (auto& [name, value] : reply.headers) value = ReplaceAll(value, key);
  if (reply.error) reply.error = ReplaceAll(*reply.error, key);
  for (auto& p : reply.pieces) p.raw = ReplaceAll(std::move(p.raw), key);
  if (reply.Body().find(key) != std::string::npos) {
    mockllm::Chunk all{reply.pieces.empty() ? 0 : reply.pieces.back().t_ms,
                       ReplaceAll(reply.Body(), key)};
    reply.pieces = {std::move(all)};
    reply.joined_reads = 0;
  }
}

bool IsStream(const ProbeReply& reply) {
  return mockllm::Lower(reply.Header("content-type")).find("text/event-stream") !=
         std::string::npos;
}

// A tool call a client can run: a name and arguments that are a JSON object.
std::optional<std::string> CallProblem(const wire::ToolCall& c) {
  if (c.function.name.empty()) return "a tool call without a function name";
  const nlohmann::json args = ReadJsonOrDiscarded(c.function.arguments);
  if (args.is_discarded() || !args.is_object())
    return Format("tool call {}: arguments {} are not a JSON object", c.function.name,
                  Quoted(c.function.arguments));
  return std::nullopt;
}

std::string CallsText(const std::vector<wire::ToolCall>& calls) {
  std::string out;
  for (const auto& c : calls) {
    if (!out.empty()) out += ", ";
    out += c.function.name + "(" + Snippet(c.function.arguments, 40) + ")";
  }
  return out;
}

// Judges the tool calls of a reply; `want` is how many the request asked for.
std::pair<ProbeOutcome, std::string> JudgeCalls(const std::vector<wire::ToolCall>& calls,
                                                const std::string& text, std::size_t want,
                                                const std::string& where) {
  if (calls.empty()) {
    return {ProbeOutcome::kFail,
            Format("{}: no tool call; text {}", where, Quoted(text.empty() ? "" : text))};
  }
  for (const auto& c : calls) {
    if (auto p = CallProblem(c)) return {ProbeOutcome::kFail, Format("{}: {}", where, *p)};
  }
  if (calls.size() < want) {
    return {ProbeOutcome::kUnsupported,
            Format("{}: {} tool call(s) where {} were asked for (no parallel calls): {}", where,
                   calls.size(), want, CallsText(calls))};
  }
  return {ProbeOutcome::kPass,
          Format("{}: {} tool call(s): {}", where, calls.size(), CallsText(calls))};
}

std::string StripThink(std::string text) {
  for (;;) {
    const std::size_t open = text.find("<think>");
    if (open == std::string::npos) return text;
    const std::size_t close = text.find("</think>", open);
    text.erase(open, close == std::string::npos ? std::string::npos : close + 8 - open);
  }
}

bool HasDeviation(const std::vector<wire::Deviation>& ds, std::string_view id) {
  return std::any_of(ds.begin(), ds.end(), [&](const wire::Deviation& d) { return d.id == id; });
}

std::string ErrorText(const wire::ErrorBody& e) {
  std::string out = Quoted(e.message);
  if (!e.type.empty()) out += Format(" (type {})", e.type);
  return out;
}

ProbeItemResult JudgeStream(const ProbeItem& item, const std::string& body,
                            const std::vector<wire::Deviation>& deviations, ProbeItemResult r) {
  const bool error_item = item.feature == "error-mapping";
  const bool asked_stream = MemberOf(item.body, "stream") == true;
  const wire::AccumulatedStream acc = wire::AccumulateStream(body);
  const std::string where = Format("{}: HTTP {} stream", item.name, r.status);
  auto set = [&](ProbeOutcome o, std::string detail) {
    r.outcome = o;
    r.detail = std::move(detail);
    return r;
  };
  if (acc.error) {
    return error_item ? set(ProbeOutcome::kPass,
                            Format("{}, error in the stream: {}", where, ErrorText(*acc.error)))
                      : set(ProbeOutcome::kFail,
                            Format("{}, error in the stream: {}", where, ErrorText(*acc.error)));
  }
  for (const auto& f : acc.findings) {
    if (!wire::IsDeviationId(f.rule))
      return set(ProbeOutcome::kFail, Format("{}: {} ({})", where, f.message, f.rule));
  }
  if (acc.chunks == 0) {
    return set(ProbeOutcome::kFail,
               Format("{}: no chunk in {} bytes: {}", where, body.size(), Quoted(body)));
  }
  if (!asked_stream && !error_item) {
    return set(ProbeOutcome::kFail,
               Format("{}: an event stream answered a request without \"stream\": true", where));
  }
  if (error_item) {
    return set(ProbeOutcome::kNotProvoked,
               Format("{}: answered normally ({} chunk(s)); no error to read", where, acc.chunks));
  }
  const std::string text = acc.message.Text();
  const std::string chunks = Format("{}, {} chunk(s)", where, acc.chunks);
  if (item.feature == "streamed-text") {
    if (text.empty()) return set(ProbeOutcome::kFail, chunks + ": no text in the deltas");
    return set(ProbeOutcome::kPass, Format("{}, text {}", chunks, Quoted(text)));
  }
  if (item.feature == "usage") {
    const bool ok = acc.usage.is_object() && acc.usage.contains("total_tokens") &&
                    acc.usage["total_tokens"].is_number();
    if (!ok) {
      return set(ProbeOutcome::kFail,
                 chunks +
                     ": no usage with total_tokens although stream_options.include_usage "
                     "asked for it");
    }
    return set(ProbeOutcome::kPass, Format("{}, usage {}", chunks, DumpJson(acc.usage)));
  }
  if (item.feature == "streamed-tool-calls") {
    auto [o, d] = JudgeCalls(acc.message.tool_calls, text, 1, chunks);
    return set(o, d);
  }
  if (item.feature == "reasoning") {
    std::string reasoning = acc.message.reasoning_content.value_or("");
    if (reasoning.empty() && acc.message.extra.contains("reasoning") &&
        acc.message.extra["reasoning"].is_string())
      reasoning = acc.message.extra["reasoning"].get<std::string>();
    const bool think = text.find("<think>") != std::string::npos;
    const bool details = HasDeviation(deviations, "DIA-REASONING-DETAILS");
    const std::string answer = StripThink(text);
    if (answer.empty()) return set(ProbeOutcome::kFail, chunks + ": no answer text");
    if (reasoning.empty() && !think && !details) {
      return set(ProbeOutcome::kUnsupported,
                 Format("{}: answer {} but no reasoning text (the model does not show its "
                        "reasoning)",
                        chunks, Quoted(answer)));
    }
    const std::string shown = !reasoning.empty() ? Quoted(reasoning)
                              : think            ? std::string("in <think> tags")
                                                 : std::string("in reasoning_details");
    return set(ProbeOutcome::kPass,
               Format("{}: reasoning {}, answer {}", chunks, shown, Quoted(answer)));
  }
  return set(ProbeOutcome::kFail, Format("{}: a stream for feature {}", where, item.feature));
}

ProbeItemResult JudgeBody(const ProbeItem& item, const std::string& body, ProbeItemResult r) {
  const bool error_item = item.feature == "error-mapping";
  const bool asked_stream = MemberOf(item.body, "stream") == true;
  const std::string where = Format("{}: HTTP {}", item.name, r.status);
  auto set = [&](ProbeOutcome o, std::string detail) {
    r.outcome = o;
    r.detail = std::move(detail);
    return r;
  };
  const nlohmann::json j = ReadJsonOrDiscarded(body);
  const std::optional<wire::ErrorBody> err =
      j.is_discarded() ? std::nullopt : wire::ErrorBodyFromJson(j);
  if (r.status >= 300 || err) {
    if (error_item) {
      if (err) {
        return set(ProbeOutcome::kPass, Format("{}, error {}", where, ErrorText(*err)));
      }
      return set(
          ProbeOutcome::kFail,
          Format("{}, but the body is no error object a client can read: {}", where, Quoted(body)));
    }
    const std::string said = err ? "error " + ErrorText(*err) : "body " + Quoted(body);
    if (item.optional_params && (r.status == 400 || r.status == 422)) {
      return set(ProbeOutcome::kUnsupported,
                 Format("{}: the endpoint refused the request: {}", where, said));
    }
    return set(ProbeOutcome::kFail, Format("{}: {}", where, said));
  }
  if (j.is_discarded()) {
    return set(ProbeOutcome::kFail, Format("{}: the body is not JSON: {}", where, Quoted(body)));
  }
  if (error_item) {
    if (item.name == "invalid-request") {
      return set(ProbeOutcome::kUnsupported,
                 Format("{}: an invalid request (empty messages) was answered as a completion; "
                        "the error shape could not be seen",
                        where));
    }
    return set(ProbeOutcome::kNotProvoked,
               Format("{}: answered normally; no error to read", where));
  }
  if (asked_stream) {
    return set(ProbeOutcome::kFail,
               Format("{}: a JSON body answered a request with \"stream\": true", where));
  }
  auto resp = wire::ResponseFromJson(j);
  if (!resp) return set(ProbeOutcome::kFail, Format("{}: {}", where, resp.error().message));
  if (resp->choices.empty()) return set(ProbeOutcome::kFail, where + ": /choices is empty");
  const wire::ChatMessage& m = resp->choices[0].message;
  const std::string text = m.Text();
  if (item.feature == "plain-text") {
    if (text.empty())
      return set(ProbeOutcome::kFail, where + ": /choices/0/message/content is empty");
    return set(ProbeOutcome::kPass, Format("{}, text {}", where, Quoted(text)));
  }
  const std::size_t want = item.feature == "parallel-tool-calls" ? 2 : 1;
  auto [o, d] = JudgeCalls(m.tool_calls, text, want, where + " /choices/0/message/tool_calls");
  return set(o, d);
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

}  // namespace

const std::vector<std::string>& ProbeFeatures() {
  static const std::vector<std::string> kFeatures = {
      "plain-text",          "streamed-text",       "usage",     "tool-call",
      "parallel-tool-calls", "streamed-tool-calls", "reasoning", "error-mapping"};
  return kFeatures;
}

std::vector<ProbeItem> ProbeBattery(const std::string& model) {
  const OJson hello = User("Say hello in five words.");
  const OJson one = User("What is the weather in Paris?");
  const OJson two = User("What is the weather in Paris and in London?");
  std::vector<ProbeItem> out;
  auto add = [&](std::string name, std::string feature, OJson body, bool optional = false) {
    out.push_back(ProbeItem{std::move(name), std::move(feature), std::move(body), optional});
  };
  add("plain", "plain-text", Request(model, hello));
  OJson stream = Request(model, hello);
  stream["stream"] = true;
  add("stream", "streamed-text", stream);
  OJson usage = Request(model, User("Say hello in five words, and count the tokens."));
  usage["stream"] = true;
  usage["stream_options"] = {{"include_usage", true}};
  add("stream-usage", "usage", usage, true);
  OJson tool = Request(model, one);
  tool["tools"] = WeatherTools();
  add("tool", "tool-call", tool, true);
  OJson par = Request(model, two);
  par["tools"] = WeatherTools();
  add("parallel-tools", "parallel-tool-calls", par, true);
  par["stream"] = true;
  add("streamed-tools", "streamed-tool-calls", par, true);
  OJson reason = Request(model, User("Is 7919 prime? Answer yes or no."));
  reason["stream"] = true;
  reason["reasoning_effort"] = "low";
  add("reasoning", "reasoning", reason, true);
  add("invalid-request", "error-mapping", Request(model, OJson::array()));
  // A live endpoint answers these two normally; the stand-in (fixtures/probe)
  // answers 429 and a 500 to a stream, so the error shapes of those statuses
  // (DIA-ERROR-WITH-200, DIA-ERROR-IN-STREAM) are probed offline too.
  add("rate-limited", "error-mapping", Request(model, User("One request too many.")));
  OJson fail = Request(model, User("Fail, please."));
  fail["stream"] = true;
  add("server-error-stream", "error-mapping", fail);
  return out;
}

std::string_view OutcomeName(ProbeOutcome o) {
  switch (o) {
    case ProbeOutcome::kPass:
      return "pass";
    case ProbeOutcome::kFail:
      return "fail";
    case ProbeOutcome::kUnsupported:
      return "unsupported";
    case ProbeOutcome::kNotProvoked:
      return "not-provoked";
  }
  return "fail";
}

ProbeOutcome CombineOutcomes(const std::vector<ProbeOutcome>& items) {
  if (std::count(items.begin(), items.end(), ProbeOutcome::kFail)) return ProbeOutcome::kFail;
  if (std::count(items.begin(), items.end(), ProbeOutcome::kPass)) return ProbeOutcome::kPass;
  return ProbeOutcome::kUnsupported;
}

std::string ProbeReply::Body() const {
  std::string out;
  for (const auto& p : pieces) out += p.raw;
  return out;
}

std::string ProbeReply::Header(std::string_view lower) const {
  for (const auto& [name, value] : headers)
    if (name == lower) return value;
  return "";
}

ProbeReply ProbePost(net::HttpClient& http, const std::string& url,
                     const std::vector<std::pair<std::string, std::string>>& headers,
                     const std::string& body, std::chrono::milliseconds timeout,
                     std::size_t max_body_bytes) {
  ProbeReply out;
  const auto start = std::chrono::steady_clock::now();
  auto elapsed = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(std::chrono::steady_clock::now() -
                                                                 start)
        .count();
  };
  std::size_t received = 0;
  bool too_big = false;
  net::HttpHandlers handlers;
  handlers.on_head = [&](const net::HttpResponse& head) {
    out.status = head.status;
    out.headers.assign(head.headers.begin(), head.headers.end());
    return true;
  };
  handlers.on_body = [&](std::string_view bytes) {
    received += bytes.size();
    if (received > max_body_bytes) {
      too_big = true;
      return false;
    }
    mockllm::AppendRead(out.pieces, out.joined_reads, elapsed(), bytes);
    return true;
  };
  try {
    auto res =
        http.Send(net::HttpRequest{.method = "POST", .url = url, .headers = headers, .body = body},
                  net::HttpTimeouts::All(timeout), handlers);
    out.ms = elapsed();
    if (res) {
      out.status = res->status;
      out.headers.assign(res->headers.begin(), res->headers.end());
    } else if (too_big) {
      out.error = Format("the body is larger than {} bytes", max_body_bytes);
    } else {
      out.timed_out = res.error().failure == net::HttpFailure::kTimeout;
      out.error = res.error().what;
    }
  } catch (const std::exception& e) {
    out.ms = elapsed();
    out.error = Format("HTTP client failure: {}", e.what());
  }
  return out;
}

ProbeItemResult JudgeProbeReply(const ProbeItem& item, const ProbeReply& reply,
                                const std::vector<wire::Deviation>& deviations) {
  ProbeItemResult r{.name = item.name,
                    .feature = item.feature,
                    .status = reply.status,
                    .streamed = IsStream(reply),
                    .ms = reply.ms,
                    .deviations = deviations};
  const std::string body = reply.Body();
  if (reply.status == 0) {
    r.detail = Format("{}: no answer: {}", item.name, reply.error.value_or("unknown error"));
    return r;
  }
  if (reply.error) {
    r.detail = Format("{}: HTTP {}, then the body broke off after {} bytes: {}", item.name,
                      reply.status, body.size(), *reply.error);
    return r;
  }
  try {
    r = r.streamed ? JudgeStream(item, body, deviations, r) : JudgeBody(item, body, r);
  } catch (const std::exception& e) {
    r.outcome = ProbeOutcome::kFail;
    r.detail = Format("{}: the reply could not be read: {}", item.name, e.what());
  }
  // Messages of the readers may quote the reply's bytes.
  r.detail = ToValidUtf8(r.detail);
  return r;
}

void SetupProbe(CLI::App& app, ProbeArgs& a) {
  app.add_option("--base-url", a.base_url,
                 "the endpoint's OpenAI base URL (requests go to URL/chat/completions), e.g. "
                 "https://api.openai.com/v1 or http://127.0.0.1:11434/v1")
      ->required();
  app.add_option("--model", a.model, "the model every request names")->required();
  app.add_option("--api-key-env", a.api_key_env,
                 "environment variable holding the API key, sent as `Authorization: Bearer`; "
                 "unset or empty: no key is sent")
      ->capture_default_str();
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
  app.add_flag("--json", a.json,
               "print the row as JSON: {endpoint, model, features: {NAME: pass|fail|unsupported}, "
               "deviations: [DIA-…], evidence: {features, deviations}}");
  app.footer(
      "Sends a fixed battery of Chat Completions requests to an OpenAI-compatible endpoint and\n"
      "prints its row of the provider matrix:\n"
      "  plain                plain-text           a non-streamed answer\n"
      "  stream               streamed-text        a streamed answer\n"
      "  stream-usage         usage                stream_options.include_usage\n"
      "  tool                 tool-call            one tool call (tool get_weather)\n"
      "  parallel-tools       parallel-tool-calls  two tool calls in one turn\n"
      "  streamed-tools       streamed-tool-calls  tool calls in a stream\n"
      "  reasoning            reasoning            reasoning_effort; reasoning text shown?\n"
      "  invalid-request      error-mapping        empty messages: the error shape\n"
      "  rate-limited, server-error-stream  error-mapping: answered normally by a live\n"
      "                       endpoint; the stand-in below answers 429 and a streamed 500\n"
      "A feature passes when a careful client (llmconform's reference readers) gets what was\n"
      "asked; it is unsupported when the endpoint refuses the request (HTTP 400/422) or does\n"
      "not do it (no reasoning text, one tool call where two were asked); it fails otherwise\n"
      "(network error, timeout, non-JSON answer, broken stream, wrong status), with the\n"
      "evidence. Deviations are the DIA-* ids of specs/wire/dialects.json that `llmconform\n"
      "dialect` finds in the replies, each with the response and field that shows it.\n"
      "The key is read from the environment only, and is never printed or recorded.\n\n"
      "Examples:\n"
      "  OPENAI_API_KEY=… llmconform probe --base-url https://api.openai.com/v1 --model "
      "gpt-4o-mini\n"
      "  llmconform probe --base-url http://127.0.0.1:11434/v1 --model qwen3 --record "
      "fixtures/ollama-probe\n"
      "  mockllm serve --traces fixtures/probe --dialect gemini   # a stand-in endpoint\n"
      "  llmconform probe --base-url http://127.0.0.1:PORT/v1 --model gpt-4o-mini --json\n\n"
      "Exit codes: 0 no probed feature failed, 1 some failed, 2 usage or input error, 3 a\n"
      "recording could not be written. docs/dialects.md describes the battery and the JSON.");
}

int RunProbe(const ProbeArgs& a, net::HttpClient& http) {
  auto url = SplitHttpUrl(a.base_url);
  if (!url) {
    std::cerr << "llmconform probe: --base-url \"" << Snippet(a.base_url)
              << "\": not an http(s) URL with a host (e.g. https://api.openai.com/v1)\n";
    return kExitUsage;
  }
  if (a.model.empty() || !IsValidUtf8(a.model) || !IsValidUtf8(a.provider)) {
    std::cerr << "llmconform probe: "
              << (a.model.empty() || !IsValidUtf8(a.model) ? "--model" : "--provider")
              << ": expected a non-empty name in UTF-8\n";
    return kExitUsage;
  }
  std::set<std::string> wanted;
  for (const std::string& f : a.features) {
    if (!FeatureSet().contains(f)) {
      std::cerr << "llmconform probe: --features: unknown feature \"" << Snippet(f)
                << "\" (known: " << JoinNames(ProbeFeatures()) << ")\n";
      return kExitUsage;
    }
    wanted.insert(f);
  }
  if (wanted.empty()) wanted = FeatureSet();
  std::string key;
  if (const char* k = std::getenv(a.api_key_env.c_str())) key = k;
  if (std::any_of(key.begin(), key.end(), [](unsigned char c) { return c < 0x20 || c == 0x7f; })) {
    std::cerr << "llmconform probe: the value of $" << a.api_key_env
              << " contains a control character; it is not sent\n";
    return kExitUsage;
  }
  if (key.empty()) {
    std::cerr << "llmconform probe: $" << a.api_key_env << " is not set; probing without a key\n";
  }
  const std::string provider = a.provider.empty() ? [&] {
    std::string host = url->origin.substr(url->origin.find("//") + 2);
    if (auto at = host.rfind('@'); at != std::string::npos) host = host.substr(at + 1);
    if (auto colon = host.rfind(':'); colon != std::string::npos && host.find(']') == std::string::npos)
      host.resize(colon);
    return host;
  }()
                                                      : a.provider;
  const auto timeout = std::chrono::milliseconds(static_cast<long long>(a.timeout_s * 1000));
  const std::string endpoint = mockllm::RedactText(ReplaceAll(a.base_url, key));
  const mockllm::Redactor redactor;

  std::vector<ProbeItemResult> results;
  for (const ProbeItem& item : ProbeBattery(a.model)) {
    if (!wanted.contains(item.feature)) continue;
    const std::string body = item.body.dump();
    const bool streams = MemberOf(item.body, "stream") == true;
    std::vector<std::pair<std::string, std::string>> headers = {
        {"content-type", "application/json"},
        {"accept", streams ? "text/event-stream" : "application/json"},
        {"accept-encoding", "identity"},
        {"user-agent", "llmconform-probe/" LLMCONFORM_VERSION}};
    if (!key.empty()) headers.emplace_back("authorization", "Bearer " + key);
    ProbeReply reply =
        ProbePost(http, url->origin + url->path + "/chat/completions", headers, body, timeout);
    ScrubReply(reply, key);

    std::vector<wire::Deviation> deviations;
    const std::string file = Format("{}.trace.jsonl", item.name);
    if (reply.status > 0) {
      mockllm::Trace trace;
      trace.id = provider + "/probe-" + item.name;
      trace.header = {{"format", mockllm::kTraceFormat},
                      {"id", trace.id},
                      {"origin", "recorded"},
                      {"recorded_at", UtcTimestamp(std::time(nullptr))},
                      {"upstream", endpoint},
                      {"provider", provider},
                      {"model", a.model},
                      {"notes", Format("request `{}` of llmconform probe (feature {})", item.name,
                                       item.feature)}};
      mockllm::Exchange x =
          redactor.Record(mockllm::WireExchange{.method = "POST",
                                                .path = url->path + "/chat/completions",
                                                .request_headers = headers,
                                                .request_body = body,
                                                .status = reply.status,
                                                .response_headers = reply.headers,
                                                .pieces = reply.pieces,
                                                .streamed = IsStream(reply),
                                                .complete = !reply.error,
                                                .joined_reads = reply.joined_reads});
      x.seq = 1;
      trace.exchanges.push_back(std::move(x));
      // A reply that broke off shows what breaking off looks like, not a dialect.
      if (!reply.error) {
        for (auto& row : TraceDialects(trace, file)) {
          for (auto& d : row.deviations) deviations.push_back(std::move(d));
        }
      }
      if (!a.record_dir.empty()) {
        const std::filesystem::path path = std::filesystem::path(a.record_dir) / file;
        if (auto w = WriteFileAtomically(path, ReplaceAll(mockllm::WriteTrace(trace), key)); !w) {
          std::cerr << "llmconform probe: " << w.error().message << '\n';
          return kExitInternal;
        }
      }
    } else if (!a.record_dir.empty()) {
      std::cerr << "llmconform probe: " << item.name << " not recorded: no answer\n";
    }
    results.push_back(JudgeProbeReply(item, reply, deviations));
  }

  // The row.
  std::map<std::string, std::vector<const ProbeItemResult*>> by_feature;
  for (const auto& r : results) by_feature[r.feature].push_back(&r);
  std::map<std::string, std::vector<std::pair<const ProbeItemResult*, const wire::Deviation*>>>
      by_deviation;
  for (const auto& r : results)
    for (const auto& d : r.deviations) by_deviation[d.id].push_back({&r, &d});
  bool any_fail = false;
  std::map<std::string, ProbeOutcome> feature_outcome;
  for (const std::string& f : ProbeFeatures()) {
    if (!by_feature.contains(f)) continue;
    std::vector<ProbeOutcome> os;
    for (const auto* r : by_feature[f]) os.push_back(r->outcome);
    feature_outcome[f] = CombineOutcomes(os);
    any_fail = any_fail || feature_outcome[f] == ProbeOutcome::kFail;
  }

  std::string text;
  if (a.json) {
    OJson features = OJson::object();
    OJson fevidence = OJson::object();
    for (const std::string& f : ProbeFeatures()) {
      if (!feature_outcome.contains(f)) continue;
      features[f] = OutcomeName(feature_outcome[f]);
      OJson items = OJson::array();
      for (const auto* r : by_feature[f]) {
        items.push_back({{"request", r->name},
                         {"result", OutcomeName(r->outcome)},
                         {"status", r->status},
                         {"streamed", r->streamed},
                         {"ms", r->ms},
                         {"detail", r->detail}});
      }
      fevidence[f] = std::move(items);
    }
    OJson ids = OJson::array();
    OJson devidence = OJson::object();
    for (const auto& [id, seen] : by_deviation) {
      ids.push_back(id);
      OJson items = OJson::array();
      for (const auto& [r, d] : seen)
        items.push_back({{"request", r->name}, {"where", d->where}, {"message", d->message}});
      devidence[id] = std::move(items);
    }
    OJson row = {
        {"endpoint", endpoint},
        {"model", a.model},
        {"features", std::move(features)},
        {"deviations", std::move(ids)},
        {"evidence", {{"features", std::move(fevidence)}, {"deviations", std::move(devidence)}}}};
    text = DumpJson(row, 1) + "\n";
  } else {
    text = Format("llmconform probe: {} (model {})\n\n", endpoint, a.model);
    int pass = 0, fail = 0, unsupported = 0;
    for (const std::string& f : ProbeFeatures()) {
      if (!feature_outcome.contains(f)) continue;
      const ProbeOutcome o = feature_outcome[f];
      pass += o == ProbeOutcome::kPass;
      fail += o == ProbeOutcome::kFail;
      unsupported += o == ProbeOutcome::kUnsupported;
      text += Format("{:<20} {}\n", f, OutcomeName(o));
      for (const auto* r : by_feature[f])
        text += Format("    {:<13} {} ({} ms)\n", std::string(OutcomeName(r->outcome)) + ":",
                       r->detail, r->ms);
    }
    text += Format("\ndeviations from OpenAI's wire format: {}\n", by_deviation.size());
    for (const auto& [id, seen] : by_deviation) {
      text += Format("{}\n", id);
      for (const auto& [r, d] : seen)
        text += Format("    {} {}: {}\n", r->name, d->where.empty() ? "/" : d->where, d->message);
    }
    text += Format("\n{} feature(s) pass, {} fail, {} unsupported; {} deviation(s)\n", pass, fail,
                   unsupported, by_deviation.size());
  }
  std::cout << mockllm::RedactText(ReplaceAll(std::move(text), key)) << std::flush;
  return any_fail ? kExitFail : kExitOk;
}

}  // namespace llmconform::harness
