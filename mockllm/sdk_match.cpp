#include "mockllm/sdk_match.h"

#include <optional>
#include <span>
#include <utility>

#include "base/json.h"
#include "protocols/wire/surface.h"

namespace llmconform::mockllm {
namespace {

using Defaults = std::span<const std::pair<std::string_view, Json>>;

// Chat Completions fields whose value, when equal to this, is the API's default.
Defaults ChatDefaults() {
  static const std::pair<std::string_view, Json> defaults[] = {
      {"stream", false},
      {"n", 1},
      {"temperature", 1},
      {"top_p", 1},
      {"presence_penalty", 0},
      {"frequency_penalty", 0},
      {"logprobs", false},
      {"store", false},
      {"service_tier", "auto"},
      {"parallel_tool_calls", true},
      {"response_format", {{"type", "text"}}},
  };
  return defaults;
}

// The same for the Responses API (its API reference: `store` defaults to true).
Defaults ResponsesDefaults() {
  static const std::pair<std::string_view, Json> defaults[] = {
      {"stream", false},
      {"store", true},
      {"background", false},
      {"temperature", 1},
      {"top_p", 1},
      {"top_logprobs", 0},
      {"service_tier", "auto"},
      {"truncation", "disabled"},
      {"parallel_tool_calls", true},
      {"text", {{"format", {{"type", "text"}}}}},
      {"include", Json::array()},
  };
  return defaults;
}

// A Gemini function declaration's parameters: `parametersJsonSchema` (what
// @google/genai sends) as `parameters` (the Vercel AI SDK's field), the same
// schema under either name when the values are equal; then a schema of an
// object without properties as no parameters (what a function without
// arguments sends, or omits).
void GeminiNormalizeDeclaration(Json& declaration) {
  if (!declaration.is_object()) return;
  if (auto it = declaration.find("parametersJsonSchema");
      it != declaration.end() && !declaration.contains("parameters")) {
    Json schema = std::move(*it);
    declaration.erase(it);
    declaration["parameters"] = std::move(schema);
  }
  const auto it = declaration.find("parameters");
  if (it == declaration.end() || !it->is_object()) return;
  Json rest = *it;
  if (rest.value("type", Json()) != "object") return;
  rest.erase("type");
  if (auto p = rest.find("properties"); p != rest.end() && p->is_object() && p->empty())
    rest.erase(p);
  if (rest.empty()) declaration.erase(it);
}

// The Gemini API's (generateContent): fields of generationConfig equal to
// their documented defaults, then the object itself when that empties it;
// the default tool config (AUTO function calling) and empty lists; each
// function declaration's parameters as above.
void GeminiNormalize(Json& body) {
  if (auto g = body.find("generationConfig"); g != body.end() && g->is_object()) {
    static const std::pair<std::string_view, Json> defaults[] = {
        {"candidateCount", 1},
        {"responseMimeType", "text/plain"},
    };
    for (auto it = g->begin(); it != g->end();) {
      it = it->is_null() ? g->erase(it) : std::next(it);
    }
    for (const auto& [key, value] : defaults) {
      if (auto it = g->find(std::string(key)); it != g->end() && *it == value) g->erase(it);
    }
    if (g->empty()) body.erase(g);
  }
  if (auto t = body.find("toolConfig");
      t != body.end() && *t == Json{{"functionCallingConfig", {{"mode", "AUTO"}}}})
    body.erase(t);
  for (const char* key : {"safetySettings", "labels"}) {
    if (auto it = body.find(key); it != body.end() && it->empty()) body.erase(it);
  }
  if (auto t = body.find("tools"); t != body.end() && t->is_array())
    for (Json& tool : *t)
      if (auto f = tool.find("functionDeclarations"); f != tool.end() && f->is_array())
        for (Json& declaration : *f) GeminiNormalizeDeclaration(declaration);
}

// The same for Anthropic's Messages API (its API reference; `max_tokens` is
// required and has no default, so it is always compared).
Defaults MessagesDefaults() {
  static const std::pair<std::string_view, Json> defaults[] = {
      {"stream", false},
      {"temperature", 1},
      {"service_tier", "auto"},
      {"stop_sequences", Json::array()},
      {"thinking", {{"type", "disabled"}}},
      {"metadata", Json::object()},
  };
  return defaults;
}

// A Messages message's content of one text block and nothing more
// ([{"type":"text","text":S}], what the Vercel AI SDK sends) as the string S
// (the API's shorthand for it, what @anthropic-ai/sdk passes on).
void MessagesNormalize(Json& body) {
  auto messages = body.find("messages");
  if (messages == body.end() || !messages->is_array()) return;
  for (Json& m : *messages) {
    if (!m.is_object()) continue;
    auto content = m.find("content");
    if (content == m.end() || !content->is_array() || content->size() != 1) continue;
    const Json& block = content->front();
    if (block.is_object() && block.size() == 2 && block.value("type", Json()) == "text" &&
        block.contains("text") && block["text"].is_string())
      *content = Json(block["text"]);
  }
}

Defaults DefaultsOf(std::optional<wire::Surface> surface) {
  if (surface == wire::Surface::kResponses) return ResponsesDefaults();
  if (surface == wire::Surface::kMessages) return MessagesDefaults();
  return ChatDefaults();
}

// Whether `choice` is the tool_choice a request means when it sends none.
bool DefaultToolChoice(const Json& choice, std::optional<wire::Surface> surface, bool tools) {
  if (surface == wire::Surface::kMessages) {
    // {"type":"auto"} (parallel use allowed) with tools; {"type":"none"} without.
    Json plain = choice;
    if (plain.is_object() && plain.value("disable_parallel_tool_use", true) == false)
      plain.erase("disable_parallel_tool_use");
    return plain == Json{{"type", "auto"}} || (!tools && plain == Json{{"type", "none"}});
  }
  return choice == (tools ? Json("auto") : Json("none")) ||
         (surface == wire::Surface::kResponses && choice == Json("auto"));
}

bool UsageOnly(const Json& options) {
  if (!options.is_object()) return false;
  for (auto it = options.begin(); it != options.end(); ++it) {
    if (it.key() != "include_usage" || !it->is_boolean()) return false;
  }
  return true;
}

}  // namespace

Json SdkNormalize(Json body, std::string_view path) {
  if (!body.is_object()) return body;
  const auto surface = wire::SurfaceOfPath(path);
  for (auto it = body.begin(); it != body.end();) {
    if (it->is_null()) {
      it = body.erase(it);
    } else {
      ++it;
    }
  }
  if (auto it = body.find("tools"); it != body.end() && it->is_array() && it->empty()) {
    body.erase(it);
  }
  if (surface == wire::Surface::kGemini) {
    GeminiNormalize(body);
    return body;
  }
  for (const auto& [key, value] : DefaultsOf(surface)) {
    // 1 equals 1.0: nlohmann compares numbers as values.
    if (auto it = body.find(std::string(key)); it != body.end() && *it == value) body.erase(it);
  }
  if (surface == wire::Surface::kMessages) MessagesNormalize(body);
  const bool tools = body.contains("tools");
  if (auto it = body.find("tool_choice");
      it != body.end() && DefaultToolChoice(*it, surface, tools)) {
    body.erase(it);
  }
  const bool chat = surface != wire::Surface::kResponses && surface != wire::Surface::kMessages;
  if (auto it = body.find("stream_options"); it != body.end() && chat && UsageOnly(*it))
    body.erase(it);
  return body;
}

std::string_view SdkDefaultsHelp() {
  return R"(  on every API: any top-level field whose value is null, tools:[];
  Chat Completions: stream:false, n:1, temperature:1, top_p:1,
  presence_penalty:0, frequency_penalty:0, logprobs:false, store:false,
  service_tier:"auto", parallel_tool_calls:true, response_format:{"type":"text"},
  tool_choice:"auto" with tools ("none" without), stream_options that only ask
  for usage ({"include_usage":...});
  Responses API (a path ending in /responses): stream:false, store:true,
  background:false, temperature:1, top_p:1, top_logprobs:0, service_tier:"auto",
  truncation:"disabled", parallel_tool_calls:true, text:{"format":{"type":"text"}},
  include:[], tool_choice:"auto" ("none" without tools);
  Gemini (a path ending in :generateContent or :streamGenerateContent, the
  @google/genai and google-genai SDKs; the path compared by its model and
  method, so Vertex AI's .../projects/P/locations/L/publishers/google/models/M:...
  matches the Developer API's /v1beta/models/M:...): generationConfig.candidateCount:1,
  generationConfig.responseMimeType:"text/plain", null fields of
  generationConfig and then generationConfig:{}, toolConfig:
  {"functionCallingConfig":{"mode":"AUTO"}}, safetySettings:[], labels:{}; a
  function declaration's parametersJsonSchema read as parameters, and
  parameters {"type":"object"} (with "properties":{} or not) as none;
  Anthropic Messages (a path ending in /messages): stream:false, temperature:1,
  service_tier:"auto", stop_sequences:[], thinking:{"type":"disabled"},
  metadata:{}, tool_choice:{"type":"auto"} (disable_parallel_tool_use:false
  too; {"type":"none"} without tools), a message's content of one bare text
  block [{"type":"text","text":S}] read as the string S; max_tokens is
  required and compared)";
}

}  // namespace llmconform::mockllm
