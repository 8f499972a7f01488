// The batteries of `llmconform probe --api responses|messages|gemini`, where
// their requests go, and how their replies are judged: through the surface's
// own reader (protocols/wire/surface.h), whose canonical result says which
// feature worked and whose contract findings are the row's deviations.
// fixtures/probe/generate_surfaces.py records the same requests.
#include <algorithm>

#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "harness/probe.h"
#include "harness/probe_support.h"

namespace llmconform::harness {
namespace {

using probe_support::ErrorText;
using probe_support::Quoted;
using probe_support::Snippet;
using wire::Surface;

constexpr std::string_view kHello = "Say hello in five words.";
constexpr std::string_view kHelloUsage = "Say hello in five words, and count the tokens.";
constexpr std::string_view kOne = "What is the weather in Paris?";
constexpr std::string_view kTwo = "What is the weather in Paris and in London?";
constexpr std::string_view kPrime = "Is 7919 prime? Answer yes or no.";
constexpr std::string_view kTooMany = "One request too many.";
constexpr std::string_view kFail = "Fail, please.";

OJson CitySchema(bool closed) {
  OJson s = {{"type", "object"},
             {"properties", {{"city", {{"type", "string"}}}}},
             {"required", OJson::array({"city"})}};
  if (closed) s["additionalProperties"] = false;
  return s;
}

// One request of a surface's battery: `text` as the user's message.
OJson SurfaceRequest(Surface surface, const std::string& model, std::string_view text) {
  switch (surface) {
    case Surface::kResponses:
      return {{"model", model},
              {"input", OJson::array({OJson{{"role", "user"}, {"content", text}}})}};
    case Surface::kMessages:
      return {{"model", model},
              {"max_tokens", 1024},
              {"messages", OJson::array({OJson{{"role", "user"}, {"content", text}}})}};
    case Surface::kGemini:
      return {{"contents", OJson::array({OJson{{"role", "user"},
                                               {"parts", OJson::array({{{"text", text}}})}}})}};
    case Surface::kChat:
      break;
  }
  return OJson::object();
}

OJson SurfaceTools(Surface surface) {
  const std::string_view what = "Current weather of a city.";
  switch (surface) {
    case Surface::kResponses:
      return OJson::array({OJson{{"type", "function"},
                                 {"name", "get_weather"},
                                 {"description", what},
                                 {"parameters", CitySchema(true)},
                                 {"strict", true}}});
    case Surface::kMessages:
      return OJson::array({OJson{
          {"name", "get_weather"}, {"description", what}, {"input_schema", CitySchema(true)}}});
    case Surface::kGemini:
      return OJson::array({OJson{
          {"functionDeclarations", OJson::array({OJson{{"name", "get_weather"},
                                                       {"description", what},
                                                       {"parameters", CitySchema(false)}}})}}});
    case Surface::kChat:
      break;
  }
  return OJson::array();
}

// The request's member that asks for reasoning to be shown.
void AskReasoning(Surface surface, OJson& body) {
  switch (surface) {
    case Surface::kResponses:
      body["reasoning"] = {{"effort", "low"}, {"summary", "auto"}};
      return;
    case Surface::kMessages:
      body["max_tokens"] = 2048;
      body["thinking"] = {{"type", "enabled"}, {"budget_tokens", 1024}};
      return;
    case Surface::kGemini:
      body["generationConfig"] = {{"thinkingConfig", {{"includeThoughts", true}}}};
      return;
    case Surface::kChat:
      return;
  }
}

// A request every endpoint of the surface must refuse with a 400 in its own
// error shape: a negative temperature (Responses), no max_tokens (Messages),
// no contents (Gemini).
OJson InvalidRequest(Surface surface, const std::string& model) {
  OJson body = SurfaceRequest(surface, model, kHello);
  if (surface == Surface::kResponses) body["temperature"] = -1;
  if (surface == Surface::kMessages) body.erase("max_tokens");
  if (surface == Surface::kGemini) body["contents"] = OJson::array();
  return body;
}

// The usage object's total a client reads, by surface.
std::string_view UsageTotalField(Surface surface) {
  switch (surface) {
    case Surface::kResponses:
      return "total_tokens";
    case Surface::kMessages:
      return "output_tokens";
    case Surface::kGemini:
      return "totalTokenCount";
    case Surface::kChat:
      break;
  }
  return "total_tokens";
}

std::string FindingPlace(const wire::LocatedFinding& f) {
  if (f.event == 0) return f.pointer.empty() ? "body" : f.pointer;
  return f.pointer.empty() ? Format("event {}", f.event)
                           : Format("event {} {}", f.event, f.pointer);
}

// Judges the function calls of `result`; `want` is how many were asked for.
// A call a client can run has a name and arguments that are a JSON object;
// on the Responses and Messages APIs also the id its result must cite.
std::pair<ProbeOutcome, std::string> JudgeCalls(const wire::CanonicalResult& result,
                                                std::size_t want, const std::string& where) {
  const auto calls = result.FunctionCalls();
  if (calls.empty()) {
    return {ProbeOutcome::kFail,
            Format("{}: no function call; text {}", where, Quoted(result.Text()))};
  }
  std::string listed;
  for (const wire::OutputItem* c : calls) {
    if (c->name.empty()) return {ProbeOutcome::kFail, where + ": a function call without a name"};
    if (c->call_id.empty() && result.surface != Surface::kGemini) {
      return {ProbeOutcome::kFail,
              Format("{}: function call {} without the id its result must cite", where, c->name)};
    }
    const nlohmann::json args = ReadJsonOrDiscarded(c->arguments);
    if (args.is_discarded() || !args.is_object()) {
      return {ProbeOutcome::kFail,
              Format("{}: function call {}: arguments {} are not a JSON object", where, c->name,
                     Quoted(c->arguments))};
    }
    if (!listed.empty()) listed += ", ";
    listed += Format("{}({}){}", c->name, Snippet(c->arguments, 40),
                     c->call_id.empty() ? "" : " " + c->call_id);
  }
  if (calls.size() < want) {
    return {ProbeOutcome::kUnsupported,
            Format("{}: {} function call(s) where {} were asked for (no parallel calls): {}", where,
                   calls.size(), want, listed)};
  }
  return {ProbeOutcome::kPass, Format("{}: {} function call(s): {}", where, calls.size(), listed)};
}

// The feature `item` probes, judged on a reply read without error.
std::pair<ProbeOutcome, std::string> JudgeFeature(const ProbeItem& item,
                                                  const wire::CanonicalResult& result,
                                                  const std::string& where) {
  const std::string text = result.Text();
  if (item.feature == "plain-text" || item.feature == "streamed-text") {
    if (text.empty()) return {ProbeOutcome::kFail, where + ": no output text"};
    return {ProbeOutcome::kPass, Format("{}, text {}", where, Quoted(text))};
  }
  if (item.feature == "usage") {
    const std::string_view field = UsageTotalField(result.surface);
    const bool ok = result.usage.is_object() && result.usage.contains(field) &&
                    result.usage[std::string(field)].is_number();
    if (!ok) return {ProbeOutcome::kFail, Format("{}: no usage with {}", where, field)};
    return {ProbeOutcome::kPass, Format("{}, usage {}", where, DumpJson(result.usage))};
  }
  if (item.feature == "reasoning") {
    if (text.empty()) return {ProbeOutcome::kFail, where + ": no answer text"};
    const std::string reasoning = result.Reasoning();
    if (reasoning.empty()) {
      const bool hidden = std::any_of(result.items.begin(), result.items.end(), [](const auto& i) {
        return i.kind == wire::ItemKind::kReasoning;
      });
      return {ProbeOutcome::kUnsupported,
              Format("{}: answer {} but no reasoning text ({})", where, Quoted(text),
                     hidden ? "a reasoning item without text" : "no reasoning item")};
    }
    return {ProbeOutcome::kPass,
            Format("{}: reasoning {}, answer {}", where, Quoted(reasoning), Quoted(text))};
  }
  const std::size_t want = item.feature == "parallel-tool-calls" ? 2 : 1;
  return JudgeCalls(result, want, where);
}

}  // namespace

std::string_view DefaultKeyEnv(Surface surface) {
  switch (surface) {
    case Surface::kMessages:
      return "ANTHROPIC_API_KEY";
    case Surface::kGemini:
      return "GEMINI_API_KEY";
    case Surface::kChat:
    case Surface::kResponses:
      break;
  }
  return "OPENAI_API_KEY";
}

std::vector<ProbeItem> ProbeBattery(Surface surface, const std::string& model) {
  if (surface == Surface::kChat) return ProbeBattery(model);
  std::vector<ProbeItem> out;
  auto add = [&](std::string name, std::string feature, OJson body, bool stream,
                 bool optional = false) {
    if (stream && surface != Surface::kGemini) body["stream"] = true;
    out.push_back(ProbeItem{.name = std::move(name),
                            .feature = std::move(feature),
                            .body = std::move(body),
                            .optional_params = optional,
                            .surface = surface,
                            .stream = stream});
  };
  add("plain", "plain-text", SurfaceRequest(surface, model, kHello), false);
  add("stream", "streamed-text", SurfaceRequest(surface, model, kHello), true);
  // Every surface reports usage in a stream unasked; its own message keeps
  // the request apart from `stream`'s for replay.
  add("stream-usage", "usage", SurfaceRequest(surface, model, kHelloUsage), true);
  OJson tool = SurfaceRequest(surface, model, kOne);
  tool["tools"] = SurfaceTools(surface);
  add("tool", "tool-call", tool, false, true);
  OJson par = SurfaceRequest(surface, model, kTwo);
  par["tools"] = SurfaceTools(surface);
  add("parallel-tools", "parallel-tool-calls", par, false, true);
  add("streamed-tools", "streamed-tool-calls", par, true, true);
  OJson reason = SurfaceRequest(surface, model, kPrime);
  AskReasoning(surface, reason);
  add("reasoning", "reasoning", reason, true, true);
  add("invalid-request", "error-mapping", InvalidRequest(surface, model), false);
  // As for Chat: answered normally by a live endpoint; the stand-in answers a
  // 429 and a failure of a stream in the surface's own shapes.
  add("rate-limited", "error-mapping", SurfaceRequest(surface, model, kTooMany), false);
  add("server-error-stream", "error-mapping", SurfaceRequest(surface, model, kFail), true);
  return out;
}

std::string ProbeRequestPath(const ProbeItem& item, const std::string& model) {
  switch (item.surface) {
    case Surface::kChat:
      return "/chat/completions";
    case Surface::kResponses:
      return "/responses";
    case Surface::kMessages:
      return "/messages";
    case Surface::kGemini:
      return "/models/" + model +
             (item.stream ? ":streamGenerateContent?alt=sse" : ":generateContent");
  }
  return "";
}

std::vector<std::pair<std::string, std::string>> ProbeAuthHeaders(Surface surface,
                                                                  const std::string& key) {
  std::vector<std::pair<std::string, std::string>> out;
  if (surface == Surface::kMessages) out.emplace_back("anthropic-version", "2023-06-01");
  if (key.empty()) return out;
  if (surface == Surface::kMessages) {
    out.emplace_back("x-api-key", key);
  } else if (surface == Surface::kGemini) {
    out.emplace_back("x-goog-api-key", key);
  } else {
    out.emplace_back("authorization", "Bearer " + key);
  }
  return out;
}

namespace probe_support {

ProbeItemResult JudgeSurface(const ProbeItem& item, const std::string& body, ProbeItemResult r) {
  const bool error_item = item.feature == "error-mapping";
  const std::string where =
      Format("{}: HTTP {}{}", item.name, r.status, r.streamed ? " stream" : "");
  auto set = [&](ProbeOutcome o, std::string detail) {
    r.outcome = o;
    r.detail = std::move(detail);
    return r;
  };
  wire::CanonicalResult result;
  if (r.streamed) {
    result = wire::AccumulateSurfaceStream(item.surface, body);
  } else {
    const nlohmann::json j = ReadJsonOrDiscarded(body);
    if (j.is_discarded()) {
      if (r.status >= 300 && error_item) {
        return set(ProbeOutcome::kFail,
                   Format("{}, but the body is no error object a client can read: {}", where,
                          Quoted(body)));
      }
      return set(ProbeOutcome::kFail, Format("{}: the body is not JSON: {}", where, Quoted(body)));
    }
    result = wire::ReadSurfaceBody(item.surface, j);
  }
  // The reader's contract findings are deviations of this endpoint's wire.
  for (const wire::LocatedFinding& f : result.findings)
    r.deviations.push_back({.id = f.rule, .where = FindingPlace(f), .message = f.message});
  const std::string first_finding =
      result.findings.empty()
          ? ""
          : Format(" ({}: {})", result.findings[0].rule, Snippet(result.findings[0].message, 160));
  if (r.status >= 300 || result.error) {
    const std::string said =
        result.error ? "error " + ErrorText(*result.error) : "body " + Quoted(body) + first_finding;
    if (error_item) {
      if (result.error) return set(ProbeOutcome::kPass, Format("{}, {}", where, said));
      return set(ProbeOutcome::kFail,
                 Format("{}, but no error a client can read: {}", where, said));
    }
    if (item.optional_params && (r.status == 400 || r.status == 422)) {
      return set(ProbeOutcome::kUnsupported,
                 Format("{}: the endpoint refused the request: {}", where, said));
    }
    return set(ProbeOutcome::kFail, Format("{}: {}", where, said));
  }
  if (r.streamed && result.events == 0) {
    return set(ProbeOutcome::kFail,
               Format("{}: no event in {} bytes: {}", where, body.size(), Quoted(body)));
  }
  if (r.streamed != item.stream && !error_item) {
    return set(ProbeOutcome::kFail, Format("{}: {} answered a request {}", where,
                                           r.streamed ? "an event stream" : "a JSON body",
                                           item.stream ? "for a stream" : "for a JSON body"));
  }
  if (error_item) {
    if (item.name == "invalid-request") {
      return set(ProbeOutcome::kUnsupported,
                 Format("{}: an invalid request was answered normally; the error shape could not "
                        "be seen",
                        where));
    }
    return set(ProbeOutcome::kNotProvoked, where + ": answered normally; no error to read");
  }
  const std::string read = r.streamed ? Format("{}, {} event(s)", where, result.events) : where;
  auto [outcome, detail] = JudgeFeature(item, result, read);
  if (outcome == ProbeOutcome::kFail) detail += first_finding;
  return set(outcome, std::move(detail));
}

}  // namespace probe_support
}  // namespace llmconform::harness
