#include "harness/probe.h"

#include <algorithm>
#include <cctype>

#include "base/format.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "harness/probe_support.h"
#include "mockllm/redaction.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::harness {
namespace probe_support {

std::string Snippet(std::string_view text, std::size_t max) {
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

std::string ScrubKey(std::string text, std::string_view key) {
  if (key.empty()) return text;
  constexpr std::string_view kMark = "[redacted]";
  const auto word = [](char c) {
    return std::isalnum(static_cast<unsigned char>(c)) != 0 || c == '-' || c == '_';
  };
  const bool anywhere = key.size() >= kWholeKeyBytes;
  for (std::size_t at = text.find(key); at != std::string::npos; at = text.find(key, at)) {
    const std::size_t end = at + key.size();
    if (anywhere ||
        ((at == 0 || !word(text[at - 1])) && (end == text.size() || !word(text[end])))) {
      text.replace(at, key.size(), kMark);
      at += kMark.size();
    } else {
      at += 1;
    }
  }
  return text;
}

bool IsStream(const ProbeReply& reply) {
  return mockllm::Lower(reply.Header("content-type")).find("text/event-stream") !=
         std::string::npos;
}

std::string Quoted(std::string_view text) { return "\"" + Snippet(text) + "\""; }

std::string ErrorText(const wire::ErrorBody& e) {
  std::string out = Quoted(e.message);
  if (!e.type.empty()) out += Format(" (type {})", e.type);
  return out;
}

}  // namespace probe_support

namespace {

using probe_support::ErrorText;
using probe_support::IsStream;
using probe_support::Quoted;
using probe_support::Snippet;

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
  for (ProbeItem& i : out) i.stream = MemberOf(i.body, "stream") == true;
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
    if (item.surface != wire::Surface::kChat) {
      r = probe_support::JudgeSurface(item, body, r);
    } else {
      r = r.streamed ? JudgeStream(item, body, deviations, r) : JudgeBody(item, body, r);
    }
  } catch (const std::exception& e) {
    r.outcome = ProbeOutcome::kFail;
    r.detail = Format("{}: the reply could not be read: {}", item.name, e.what());
  }
  // Messages of the readers may quote the reply's bytes.
  r.detail = ToValidUtf8(r.detail);
  return r;
}

}  // namespace llmconform::harness
