#include "protocols/wire/surface.h"

#include <algorithm>

#include "base/format.h"
#include "protocols/wire/gemini.h"
#include "protocols/wire/messages.h"
#include "protocols/wire/responses.h"
#include "protocols/wire/stream_accumulator.h"

namespace llmconform::wire {
namespace {

// The result of the Chat accumulator as the canonical result: reasoning
// first (DeepSeek's reasoning_content, Ollama's reasoning, then thinking
// blocks of an array content: Mistral), then the message
// text, then one item per tool call.
CanonicalResult FromChat(AccumulatedStream acc) {
  CanonicalResult out{.surface = Surface::kChat};
  const ChatMessage& m = acc.message;
  std::string reasoning = m.reasoning_content.value_or("");
  if (auto r = m.extra.find("reasoning"); r != m.extra.end() && r->is_string())
    reasoning += r->get<std::string>();
  if (m.reasoning_content || m.extra.contains("reasoning")) {
    OutputItem item{.kind = ItemKind::kReasoning,
                    .type = m.reasoning_content ? "reasoning_content" : "reasoning"};
    item.text = std::move(reasoning);
    out.items.push_back(std::move(item));
  }
  if (std::string thinking = m.ContentThinking(); !thinking.empty()) {
    OutputItem item{.kind = ItemKind::kReasoning, .type = "thinking"};
    item.text = std::move(thinking);
    out.items.push_back(std::move(item));
  }
  if (!m.Text().empty() || m.tool_calls.empty()) {
    OutputItem item{.kind = ItemKind::kMessage, .type = "message"};
    item.text = m.Text();
    item.raw = ToJson(m);
    out.items.push_back(std::move(item));
  }
  for (const ToolCall& c : m.tool_calls) {
    OutputItem item{.kind = ItemKind::kFunctionCall, .type = c.type};
    item.call_id = c.id;
    item.name = c.function.name;
    item.arguments = c.function.arguments;
    item.raw = ToJson(c);
    out.items.push_back(std::move(item));
  }
  out.status = std::move(acc.finish_reason);
  out.usage = std::move(acc.usage);
  out.error = std::move(acc.error);
  out.terminated = acc.saw_done;
  out.events = acc.chunks;
  for (Finding& f : acc.findings) out.findings.push_back({std::move(f.rule), std::move(f.message)});
  return out;
}

class ChatSurfaceAccumulator final : public SurfaceAccumulator {
 public:
  void AddEvent(const SseEventView& event) override { acc_.AddEvent(event); }
  void NoteComments(std::size_t count) override { acc_.NoteComments(count); }
  CanonicalResult Finish() override { return FromChat(acc_.Finish()); }

 private:
  StreamAccumulator acc_;
};

CanonicalResult ReadChatBody(const Json& body) {
  CanonicalResult out{.surface = Surface::kChat};
  out.terminated = true;
  if (auto e = ErrorBodyFromJson(body); e && !(body.is_object() && body.contains("choices"))) {
    out.error = std::move(e);
    return out;
  }
  auto response = ResponseFromJson(body);
  if (!response || response->choices.empty()) {
    out.findings.push_back({"WIRE-BODY-MALFORMED",
                            response ? "/choices: no choice" : response.error().message, 0,
                            response ? "/choices" : ""});
    return out;
  }
  AccumulatedStream acc;
  acc.message = response->choices[0].message;
  acc.finish_reason = response->choices[0].finish_reason;
  if (response->usage) acc.usage = *response->usage;
  CanonicalResult read = FromChat(std::move(acc));
  read.id = response->id;
  read.model = response->model;
  read.terminated = true;
  return read;
}

Json ItemToJson(const OutputItem& item) {
  Json j{{"kind", ItemKindName(item.kind)}, {"type", item.type}, {"id", item.id}};
  switch (item.kind) {
    case ItemKind::kMessage:
      j["text"] = item.text;
      if (!item.refusal.empty()) j["refusal"] = item.refusal;
      break;
    case ItemKind::kReasoning:
      j["summary"] = item.summary;
      j["text"] = item.text;
      if (item.signature) j["signature"] = *item.signature;
      break;
    case ItemKind::kFunctionCall:
      j["call_id"] = item.call_id;
      j["name"] = item.name;
      j["arguments"] = item.arguments;
      break;
    case ItemKind::kOther:
      j["item"] = item.raw;
      break;
  }
  if (item.encrypted) j["encrypted_content"] = *item.encrypted;
  if (item.status) j["status"] = *item.status;
  return j;
}

// Anthropic's `…/messages` and `…/messages/count_tokens` (the last segments,
// last first), but not OpenAI Assistants' `…/threads/{id}/messages`.
bool IsMessagesPath(const std::vector<std::string_view>& segments) {
  if (segments.size() >= 2 && segments[0] == "count_tokens" && segments[1] == "messages")
    return true;
  return !segments.empty() && segments[0] == "messages" &&
         !(segments.size() >= 3 && segments[2] == "threads");
}

}  // namespace

std::string_view SurfaceName(Surface surface) {
  switch (surface) {
    case Surface::kChat:
      return "chat";
    case Surface::kResponses:
      return "responses";
    case Surface::kGemini:
      return "gemini";
    case Surface::kMessages:
      return "messages";
  }
  return "chat";
}

std::optional<Surface> SurfaceFromName(std::string_view name) {
  for (Surface s : AllSurfaces()) {
    if (SurfaceName(s) == name) return s;
  }
  return std::nullopt;
}

std::vector<Surface> AllSurfaces() {
  return {Surface::kChat, Surface::kResponses, Surface::kGemini, Surface::kMessages};
}

std::optional<Surface> SurfaceOfPath(std::string_view path) {
  path = path.substr(0, path.find('?'));
  if (IsGeminiPath(path)) return Surface::kGemini;
  while (path.ends_with('/')) path.remove_suffix(1);
  if (path.ends_with("/chat/completions")) return Surface::kChat;
  // The last segments: …/responses, …/responses/X, …/responses/X/cancel.
  std::vector<std::string_view> segments;
  for (int i = 0; i < 3 && !path.empty(); ++i) {
    const auto slash = path.rfind('/');
    segments.push_back(path.substr(slash == std::string_view::npos ? 0 : slash + 1));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(0, slash);
  }
  if (!segments.empty() && segments[0] == "responses") return Surface::kResponses;
  if (IsMessagesPath(segments)) return Surface::kMessages;
  if (segments.size() >= 2 && segments[1] == "responses" && !segments[0].empty())
    return Surface::kResponses;
  if (segments.size() >= 3 && segments[2] == "responses" && segments[0] == "cancel")
    return Surface::kResponses;
  return std::nullopt;
}

std::string_view ItemKindName(ItemKind kind) {
  switch (kind) {
    case ItemKind::kMessage:
      return "message";
    case ItemKind::kReasoning:
      return "reasoning";
    case ItemKind::kFunctionCall:
      return "function_call";
    case ItemKind::kOther:
      return "other";
  }
  return "other";
}

std::string CanonicalResult::Text() const {
  std::string out;
  for (const auto& i : items)
    if (i.kind == ItemKind::kMessage) out += i.text;
  return out;
}

std::string CanonicalResult::Reasoning() const {
  std::string out;
  for (const auto& i : items) {
    if (i.kind != ItemKind::kReasoning) continue;
    for (const auto& s : i.summary) out += s;
    out += i.text;
  }
  return out;
}

std::vector<const OutputItem*> CanonicalResult::FunctionCalls() const {
  std::vector<const OutputItem*> out;
  for (const auto& i : items)
    if (i.kind == ItemKind::kFunctionCall) out.push_back(&i);
  return out;
}

Json ToJson(const CanonicalResult& r) {
  Json items = Json::array();
  for (const auto& i : r.items) items.push_back(ItemToJson(i));
  Json findings = Json::array();
  for (const auto& f : r.findings)
    findings.push_back(
        {{"rule", f.rule}, {"message", f.message}, {"event", f.event}, {"pointer", f.pointer}});
  Json out{{"surface", SurfaceName(r.surface)},
           {"id", r.id},
           {"model", r.model},
           {"items", std::move(items)},
           {"text", r.Text()},
           {"reasoning", r.Reasoning()},
           {"status", r.status ? Json(*r.status) : Json(nullptr)},
           {"incomplete_reason", r.incomplete_reason ? Json(*r.incomplete_reason) : Json(nullptr)},
           {"usage", r.usage},
           {"terminated", r.terminated},
           {"events", r.events},
           {"other_events", r.other_events},
           {"findings", std::move(findings)}};
  if (r.error) out["error"] = ToJson(*r.error)["error"];
  return out;
}

std::unique_ptr<SurfaceAccumulator> MakeAccumulator(Surface surface) {
  switch (surface) {
    case Surface::kResponses:
      return std::make_unique<ResponsesAccumulator>();
    case Surface::kGemini:
      return std::make_unique<GeminiAccumulator>();
    case Surface::kMessages:
      return std::make_unique<MessagesAccumulator>();
    case Surface::kChat:
      break;
  }
  return std::make_unique<ChatSurfaceAccumulator>();
}

CanonicalResult AccumulateSurfaceStream(Surface surface, std::string_view raw_sse) {
  return AccumulateSurfaceStreamSplit(surface, raw_sse, {});
}

CanonicalResult AccumulateSurfaceStreamSplit(Surface surface, std::string_view raw_sse,
                                             std::span<const std::size_t> cuts) {
  SseParser parser;
  auto acc = MakeAccumulator(surface);
  auto feed = [&](std::string_view piece) {
    parser.Feed(piece, [&acc](const SseEventView& ev) { acc->AddEvent(ev); });
  };
  std::size_t at = 0;
  for (std::size_t cut : cuts) {
    cut = std::clamp(cut, at, raw_sse.size());
    feed(raw_sse.substr(at, cut - at));
    at = cut;
  }
  feed(raw_sse.substr(at));
  parser.Finish();
  acc->NoteComments(parser.comment_count());
  return acc->Finish();
}

CanonicalResult ReadSurfaceBody(Surface surface, const Json& body) {
  switch (surface) {
    case Surface::kResponses:
      return ReadResponsesBody(body);
    case Surface::kGemini:
      return ReadGeminiBody(body);
    case Surface::kMessages:
      return ReadMessagesBody(body);
    case Surface::kChat:
      break;
  }
  return ReadChatBody(body);
}

}  // namespace llmconform::wire
