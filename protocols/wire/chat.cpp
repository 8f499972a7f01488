#include "protocols/wire/chat.h"

#include "base/format.h"
#include "base/json_fields.h"

namespace llmconform::wire {
namespace {

std::unexpected<Error> TypeError(std::string_view where, std::string_view expected,
                                 const Json& got) {
  return std::unexpected(Error{
      Format("{}: expected {}, got {}", where.empty() ? "/" : where, expected, JsonTypeName(got))});
}

// Reads an optional string field; absent and null both give nullopt.
std::expected<std::optional<std::string>, Error> OptString(const Json& j, const char* key,
                                                           std::string_view where) {
  auto it = j.find(key);
  if (it == j.end() || it->is_null()) return std::optional<std::string>{};
  if (!it->is_string()) return TypeError(Format("{}/{}", where, key), "string", *it);
  return std::optional<std::string>{it->get<std::string>()};
}

void MergeExtra(Json& out, const Json& extra) {
  for (auto it = extra.begin(); it != extra.end(); ++it) out[it.key()] = it.value();
}

}  // namespace

std::string ContentText(const Json& content) {
  if (content.is_string()) return content.get<std::string>();
  std::string out;
  if (content.is_array()) {
    for (const auto& part : content) {
      if (part.is_object() && part.contains("text") && part["text"].is_string()) {
        out += part["text"].get<std::string>();
      }
    }
  }
  return out;
}

std::string ChatMessage::Text() const { return content ? ContentText(*content) : ""; }

std::string ChatMessage::ContentThinking() const {
  std::string out;
  if (!content || !content->is_array()) return out;
  for (const auto& part : *content) {
    if (!part.is_object() || part.value("type", Json()) != "thinking") continue;
    auto t = part.find("thinking");
    if (t == part.end()) continue;
    if (t->is_string()) out += t->get_ref<const std::string&>();
    if (!t->is_array()) continue;
    for (const auto& inner : *t) {
      if (inner.is_object() && inner.contains("text") && inner["text"].is_string())
        out += inner["text"].get_ref<const std::string&>();
    }
  }
  return out;
}

std::expected<ToolCall, Error> ToolCallFromJson(const Json& j, std::string_view where) {
  if (!j.is_object()) return TypeError(where, "object", j);
  ToolCall t;
  if (auto it = j.find("index"); it != j.end() && !it->is_null()) {
    if (!it->is_number_integer()) return TypeError(Format("{}/index", where), "integer", *it);
    t.index = it->get<int>();
  }
  auto id = OptString(j, "id", where);
  if (!id) return std::unexpected(id.error());
  t.id = id->value_or("");
  auto type = OptString(j, "type", where);
  if (!type) return std::unexpected(type.error());
  t.type = type->value_or("");
  if (auto it = j.find("function"); it != j.end() && !it->is_null()) {
    const std::string fwhere = Format("{}/function", where);
    if (!it->is_object()) return TypeError(fwhere, "object", *it);
    auto name = OptString(*it, "name", fwhere);
    if (!name) return std::unexpected(name.error());
    t.function.name = name->value_or("");
    auto args = OptString(*it, "arguments", fwhere);
    if (!args) return std::unexpected(args.error());
    t.function.arguments = args->value_or("");
    t.function.extra = JsonExtras(*it, std::array<std::string_view, 2>{"name", "arguments"});
  }
  t.extra = JsonExtras(j, std::array<std::string_view, 4>{"index", "id", "type", "function"});
  return t;
}

Json ToJson(const ToolCall& t) {
  Json j = Json::object();
  if (t.index) j["index"] = *t.index;
  j["id"] = t.id;
  j["type"] = t.type;
  Json f = {{"name", t.function.name}, {"arguments", t.function.arguments}};
  MergeExtra(f, t.function.extra);
  j["function"] = std::move(f);
  MergeExtra(j, t.extra);
  return j;
}

std::expected<ChatMessage, Error> MessageFromJson(const Json& j, std::string_view where) {
  if (!j.is_object()) return TypeError(where, "object", j);
  ChatMessage m;
  auto role = OptString(j, "role", where);
  if (!role) return std::unexpected(role.error());
  m.role = role->value_or("");
  if (auto it = j.find("content"); it != j.end()) {
    if (!it->is_null() && !it->is_string() && !it->is_array()) {
      return TypeError(Format("{}/content", where), "string, array or null", *it);
    }
    m.content = *it;
  }
  auto reasoning = OptString(j, "reasoning_content", where);
  if (!reasoning) return std::unexpected(reasoning.error());
  if (j.contains("reasoning_content")) m.reasoning_content = reasoning->value_or("");
  if (auto it = j.find("tool_calls"); it != j.end() && !it->is_null()) {
    if (!it->is_array()) return TypeError(Format("{}/tool_calls", where), "array", *it);
    m.has_tool_calls = true;
    for (std::size_t i = 0; i < it->size(); ++i) {
      auto call = ToolCallFromJson((*it)[i], Format("{}/tool_calls/{}", where, i));
      if (!call) return std::unexpected(call.error());
      m.tool_calls.push_back(std::move(*call));
    }
  }
  auto tcid = OptString(j, "tool_call_id", where);
  if (!tcid) return std::unexpected(tcid.error());
  m.tool_call_id = *tcid;
  auto name = OptString(j, "name", where);
  if (!name) return std::unexpected(name.error());
  m.name = *name;
  m.extra = JsonExtras(j, std::array<std::string_view, 6>{"role", "content", "reasoning_content",
                                                          "tool_calls", "tool_call_id", "name"});
  // A null tool_calls is kept as written.
  if (j.contains("tool_calls") && j["tool_calls"].is_null()) m.extra["tool_calls"] = nullptr;
  return m;
}

Json ToJson(const ChatMessage& m) {
  Json j = Json::object();
  j["role"] = m.role;
  if (m.content) j["content"] = *m.content;
  if (m.reasoning_content) j["reasoning_content"] = *m.reasoning_content;
  if (m.has_tool_calls) {
    Json calls = Json::array();
    for (const auto& t : m.tool_calls) calls.push_back(ToJson(t));
    j["tool_calls"] = std::move(calls);
  }
  if (m.tool_call_id) j["tool_call_id"] = *m.tool_call_id;
  if (m.name) j["name"] = *m.name;
  MergeExtra(j, m.extra);
  return j;
}

std::expected<ChatRequest, Error> RequestFromJson(const Json& j) {
  if (!j.is_object()) return TypeError("", "object", j);
  ChatRequest r;
  auto model = OptString(j, "model", "");
  if (!model) return std::unexpected(model.error());
  r.model = model->value_or("");
  auto it = j.find("messages");
  if (it == j.end()) return std::unexpected(Error{"/messages: required field missing"});
  if (!it->is_array()) return TypeError("/messages", "array", *it);
  for (std::size_t i = 0; i < it->size(); ++i) {
    auto m = MessageFromJson((*it)[i], Format("/messages/{}", i));
    if (!m) return std::unexpected(m.error());
    r.messages.push_back(std::move(*m));
  }
  if (auto s = j.find("stream"); s != j.end() && !s->is_null()) {
    if (!s->is_boolean()) return TypeError("/stream", "boolean", *s);
    r.stream = s->get<bool>();
  }
  if (auto t = j.find("temperature"); t != j.end() && !t->is_null()) {
    if (!t->is_number()) return TypeError("/temperature", "number", *t);
    r.temperature = t->get<double>();
  }
  if (auto t = j.find("max_tokens"); t != j.end() && !t->is_null()) {
    if (!t->is_number_integer()) return TypeError("/max_tokens", "integer", *t);
    r.max_tokens = t->get<long long>();
  }
  if (auto t = j.find("tools"); t != j.end()) r.tools = *t;
  r.extra = JsonExtras(j, std::array<std::string_view, 6>{"model", "messages", "stream",
                                                          "temperature", "max_tokens", "tools"});
  return r;
}

Json ToJson(const ChatRequest& r) {
  Json j = Json::object();
  j["model"] = r.model;
  Json msgs = Json::array();
  for (const auto& m : r.messages) msgs.push_back(ToJson(m));
  j["messages"] = std::move(msgs);
  if (r.stream) j["stream"] = *r.stream;
  if (r.temperature) j["temperature"] = *r.temperature;
  if (r.max_tokens) j["max_tokens"] = *r.max_tokens;
  if (r.tools) j["tools"] = *r.tools;
  MergeExtra(j, r.extra);
  return j;
}

std::expected<ChatResponse, Error> ResponseFromJson(const Json& j) {
  if (!j.is_object()) return TypeError("", "object", j);
  ChatResponse r;
  for (auto [key, field] :
       {std::pair{"id", &r.id}, std::pair{"object", &r.object}, std::pair{"model", &r.model}}) {
    auto v = OptString(j, key, "");
    if (!v) return std::unexpected(v.error());
    *field = v->value_or("");
  }
  if (auto c = j.find("created"); c != j.end() && c->is_number_integer())
    r.created = c->get<long long>();
  auto it = j.find("choices");
  if (it == j.end()) return std::unexpected(Error{"/choices: required field missing"});
  if (!it->is_array()) return TypeError("/choices", "array", *it);
  for (std::size_t i = 0; i < it->size(); ++i) {
    const Json& cj = (*it)[i];
    const std::string where = Format("/choices/{}", i);
    if (!cj.is_object()) return TypeError(where, "object", cj);
    Choice c;
    c.index = cj.value("index", static_cast<int>(i));
    auto mj = cj.find("message");
    if (mj == cj.end()) return std::unexpected(Error{where + "/message: required field missing"});
    auto m = MessageFromJson(*mj, where + "/message");
    if (!m) return std::unexpected(m.error());
    c.message = std::move(*m);
    auto fr = OptString(cj, "finish_reason", where);
    if (!fr) return std::unexpected(fr.error());
    c.finish_reason = *fr;
    c.extra = JsonExtras(cj, std::array<std::string_view, 3>{"index", "message", "finish_reason"});
    r.choices.push_back(std::move(c));
  }
  if (auto u = j.find("usage"); u != j.end()) r.usage = *u;
  r.extra = JsonExtras(
      j, std::array<std::string_view, 6>{"id", "object", "created", "model", "choices", "usage"});
  return r;
}

Json ToJson(const ChatResponse& r) {
  Json j = {{"id", r.id}, {"object", r.object}, {"created", r.created}, {"model", r.model}};
  Json choices = Json::array();
  for (const auto& c : r.choices) {
    Json cj = {{"index", c.index}, {"message", ToJson(c.message)}};
    cj["finish_reason"] = c.finish_reason ? Json(*c.finish_reason) : Json(nullptr);
    MergeExtra(cj, c.extra);
    choices.push_back(std::move(cj));
  }
  j["choices"] = std::move(choices);
  if (r.usage) j["usage"] = *r.usage;
  MergeExtra(j, r.extra);
  return j;
}

Json ToJson(const ErrorBody& e) {
  return Json{
      {"error", {{"message", e.message}, {"type", e.type}, {"param", e.param}, {"code", e.code}}}};
}

Json MakeErrorJson(std::string_view message, std::string_view type, Json param, Json code) {
  return ToJson(
      ErrorBody{std::string(message), std::string(type), std::move(param), std::move(code)});
}

std::optional<ErrorBody> ErrorBodyFromJson(const Json& j) {
  const Json* e = nullptr;
  if (j.is_array() && !j.empty() && j[0].is_object() && j[0].contains("error")) {
    e = &j[0]["error"];  // Gemini
  } else if (j.is_object() && j.contains("error")) {
    e = &j["error"];
  } else if (j.is_object() && j.contains("message") && !j.contains("choices") &&
             (StringOf(j, "object") == "error" || j.contains("type") || j.contains("code"))) {
    e = &j;  // vLLM < 0.10.1, Mistral: flat
  }
  if (!e) return std::nullopt;
  ErrorBody body;
  if (e->is_string()) {
    body.message = e->get<std::string>();
    return body;
  }
  if (!e->is_object()) return std::nullopt;
  if (auto m = e->find("message"); m != e->end() && m->is_string())
    body.message = m->get<std::string>();
  if (auto t = e->find("type"); t != e->end() && t->is_string()) body.type = t->get<std::string>();
  if (auto t = e->find("status"); body.type.empty() && t != e->end() && t->is_string()) {
    body.type = t->get<std::string>();
  }
  if (auto p = e->find("param"); p != e->end()) body.param = *p;
  if (auto c = e->find("code"); c != e->end()) body.code = *c;
  return body;
}

}  // namespace llmconform::wire
