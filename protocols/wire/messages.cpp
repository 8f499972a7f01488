// The Messages API's content blocks and non-streamed bodies (messages.h).
#include "protocols/wire/messages.h"

#include "base/format.h"
#include "base/utf8.h"

namespace llmconform::wire {

bool IsMessagesStopReason(std::string_view reason) {
  return reason == "end_turn" || reason == "max_tokens" || reason == "stop_sequence" ||
         reason == "tool_use" || reason == "pause_turn" || reason == "refusal" ||
         reason == "model_context_window_exceeded";
}

OutputItem MessagesItemFromBlock(const Json& block) {
  OutputItem out;
  out.raw = block;
  if (!block.is_object()) return out;
  out.type = StringAt(block, "type");
  out.id = StringAt(block, "id");
  if (out.type == "text") {
    out.kind = ItemKind::kMessage;
    out.text = StringAt(block, "text");
  } else if (out.type == "thinking") {
    out.kind = ItemKind::kReasoning;
    out.text = StringAt(block, "thinking");
    if (auto s = block.find("signature"); s != block.end() && s->is_string()) out.signature = *s;
  } else if (out.type == "redacted_thinking") {
    out.kind = ItemKind::kReasoning;
    if (auto d = block.find("data"); d != block.end() && d->is_string()) out.encrypted = *d;
  } else if (out.type == "tool_use") {
    out.kind = ItemKind::kFunctionCall;
    out.call_id = out.id;
    out.name = StringAt(block, "name");
    if (auto in = block.find("input"); in != block.end()) out.arguments = in->dump();
  }
  return out;
}

CanonicalResult ReadMessagesBody(const Json& body) {
  CanonicalResult out{.surface = Surface::kMessages};
  out.terminated = true;
  FindingLog log(/*body=*/true);
  if (!body.is_object()) {
    log.Report("MSG-BODY-MESSAGE", 0, "",
               Format("expected a message object, got {}", JsonTypeNameWithArticle(body)));
    out.findings = log.Take();
    return out;
  }
  auto content = body.find("content");
  if (content == body.end() && (StringAt(body, "type") == "error" || body.contains("error"))) {
    out.error = ErrorBodyFromJson(body);
    if (!out.error || out.error->message.empty())
      log.Report("MSG-BODY-MESSAGE", 0, "/error", "an error body without error.message");
    out.findings = log.Take();
    return out;
  }
  if (content == body.end() || !content->is_array()) {
    log.Report("MSG-BODY-MESSAGE", 0, "/content",
               Format("expected the message's content array, got {}",
                      JsonTypeNameWithArticle(content == body.end() ? Json() : *content)));
    out.findings = log.Take();
    return out;
  }
  if (StringAt(body, "type") != "message")
    log.Report("MSG-BODY-MESSAGE", 0, "/type", "a message body's type is not \"message\"");
  out.id = StringAt(body, "id");
  out.model = StringAt(body, "model");
  for (const Json& block : *content) out.items.push_back(MessagesItemFromBlock(block));
  auto reason = body.find("stop_reason");
  if (reason != body.end() && reason->is_string()) out.status = *reason;
  if (!out.status || !IsMessagesStopReason(*out.status))
    log.Report("MSG-STOP-REASON", 0, "/stop_reason",
               Format("stop_reason {} is not one of the documented values",
                      reason == body.end() ? "missing" : CapText(reason->dump(), 60)));
  auto usage = body.find("usage");
  if (usage != body.end() && usage->is_object()) {
    out.usage = *usage;
  } else {
    log.Report("MSG-USAGE", 0, "/usage", "a message without a usage object");
  }
  out.findings = log.Take();
  return out;
}

}  // namespace llmconform::wire
