#include "harness/suites/client_request.h"

#include "base/format.h"
#include "base/json_fields.h"

namespace llmconform::harness::client_suite {
namespace {


const JsonPointer kInput("/input");

// Each neutral tool ({type: "function", function: {name, description,
// parameters}}) as {type: "function" (when `typed`), name, description,
// `params_key`: parameters}.
Json ToolsAs(const Json& tools, const char* params_key, bool typed) {
  Json out = Json::array();
  for (const Json& t : tools) {
    const Json& f = MemberOf(t, "function");
    Json tool = typed ? Json{{"type", "function"}} : Json::object();
    tool["name"] = MemberOf(f, "name");
    tool["description"] = MemberOf(f, "description");
    tool[params_key] = MemberOf(f, "parameters");
    out.push_back(std::move(tool));
  }
  return out;
}

// [{role, content}] of the messages; only user and assistant when `strict`.
std::expected<Json, Error> RoleContent(const Json& messages, bool strict) {
  Json out = Json::array();
  for (std::size_t i = 0; i < messages.size(); ++i) {
    const Json& role = MemberOf(messages[i], "role");
    if (strict && role != "user" && role != "assistant")
      return std::unexpected(ErrorAt(kInput / "messages" / std::to_string(i) / "role",
                                     "expected \"user\" or \"assistant\" on this surface"));
    out.push_back({{"role", role}, {"content", MemberOf(messages[i], "content")}});
  }
  return out;
}

}  // namespace

std::string ServerRoot(std::string base_url) {
  if (base_url.ends_with("/v1")) base_url.resize(base_url.size() - 3);
  return base_url;
}

std::expected<wire::Surface, Error> InputSurface(const Json& input) {
  auto name = RequireString(input, kInput, "surface");
  if (!name) return std::unexpected(name.error());
  if (auto s = wire::SurfaceFromName(*name)) return *s;
  return std::unexpected(ErrorAt(
      kInput / "surface",
      Format("\"{}\": expected \"chat\", \"responses\", \"messages\" or \"gemini\"", *name)));
}

std::expected<SurfaceRequest, Error> RequestFor(const Json& input) {
  auto surface = InputSurface(input);
  if (!surface) return std::unexpected(surface.error());
  SurfaceRequest out{.surface = *surface};
  const Json& model = MemberOf(input, "model");
  const Json& messages = MemberOf(input, "messages");
  const bool tools = input.contains("tools");
  const bool stream = MemberOf(input, "stream") == true;
  Json& body = out.body;
  switch (*surface) {
    case wire::Surface::kChat:
      out.path = "/v1/chat/completions";
      body = {{"model", model}, {"messages", messages}};
      if (tools) body["tools"] = input["tools"];
      break;
    case wire::Surface::kResponses: {
      out.path = "/v1/responses";
      auto in = RoleContent(messages, false);
      body = {{"model", model}, {"input", std::move(*in)}};
      if (tools) body["tools"] = ToolsAs(input["tools"], "parameters", true);
      break;
    }
    case wire::Surface::kMessages: {
      out.path = "/v1/messages";
      auto in = RoleContent(messages, true);
      if (!in) return std::unexpected(in.error());
      body = {{"model", model}, {"messages", std::move(*in)}};
      if (tools) body["tools"] = ToolsAs(input["tools"], "input_schema", false);
      break;
    }
    case wire::Surface::kGemini: {
      out.path = Format("/v1beta/models/{}:{}", model.is_string() ? model.get<std::string>() : "",
                        stream ? "streamGenerateContent?alt=sse" : "generateContent");
      auto in = RoleContent(messages, true);
      if (!in) return std::unexpected(in.error());
      Json contents = Json::array();
      for (const Json& m : *in)
        contents.push_back({{"role", m["role"] == "assistant" ? "model" : "user"},
                            {"parts", Json::array({{{"text", m["content"]}}})}});
      body = {{"contents", std::move(contents)}};
      if (tools)
        body["tools"] = Json::array(
            {{{"functionDeclarations", ToolsAs(input["tools"], "parametersJsonSchema", false)}}});
      break;
    }
  }
  if (stream && *surface != wire::Surface::kGemini) body["stream"] = true;
  const Json& params = MemberOf(MemberOf(input, "options"), "params");
  if (params.is_object())
    for (const auto& [key, value] : params.items()) body[key] = value;
  return out;
}

}  // namespace llmconform::harness::client_suite
