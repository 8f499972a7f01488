// The Messages API's stream accumulator (messages.h).
#include "base/format.h"
#include "base/json_read.h"
#include "base/utf8.h"
#include "protocols/wire/messages.h"

namespace llmconform::wire {
namespace {

// Blocks whose input streams as input_json_delta: tool_use and the server
// and MCP tool calls (server_tool_use, mcp_tool_use, …).
bool TakesInputJson(std::string_view block_type) { return block_type.ends_with("tool_use"); }

// The block type a delta type belongs to ("" for a delta type not modelled).
std::string_view BlockOfDelta(std::string_view delta_type) {
  if (delta_type == "text_delta" || delta_type == "citations_delta") return "text";
  if (delta_type == "thinking_delta" || delta_type == "signature_delta") return "thinking";
  if (delta_type == "input_json_delta") return "tool_use";
  return "";
}

// The field of a delta that carries its content.
std::string_view DeltaField(std::string_view delta_type) {
  if (delta_type == "text_delta") return "text";
  if (delta_type == "thinking_delta") return "thinking";
  if (delta_type == "signature_delta") return "signature";
  if (delta_type == "input_json_delta") return "partial_json";
  return "citation";
}

}  // namespace

void MessagesAccumulator::Report(std::string_view rule, std::string_view pointer,
                                 std::string message) {
  log_.Report(rule, out_.events, pointer, std::move(message));
}

void MessagesAccumulator::NoteComments(std::size_t) {
  // SSE comments are no event: the SDK skips them.
}

void MessagesAccumulator::AddEvent(const SseEventView& event) {
  ++out_.events;
  if (terminal_event_ != 0) {
    Report("MSG-AFTER-STOP", "",
           Format("an event after the stream's end (event {}); clients stop reading there",
                  terminal_event_));
    return;
  }
  // The documented keep-alive, as Anthropic writes it, needs no parse.
  if (event.event == "ping" &&
      (event.data == R"({"type": "ping"})" || event.data == R"({"type":"ping"})"))
    return;
  auto read = ReadNamedEvent(event, "MSG", out_.events, log_);
  if (!read) return;
  const Json& data = read->data;
  const std::string& type = read->type;
  if (type == "ping") return;  // keep-alive, anywhere
  if (!any_event_ && type != "message_start" && type != "error")
    Report("MSG-START-FIRST", "/type",
           Format("the first event is '{}', not 'message_start'", type));
  any_event_ = true;
  Dispatch(type, data);
}

void MessagesAccumulator::Dispatch(std::string_view type, const Json& data) {
  if (type == "message_start") {
    OnMessageStart(data);
  } else if (type == "content_block_start") {
    OnBlockStart(data);
  } else if (type == "content_block_delta") {
    OnBlockDelta(data);
  } else if (type == "content_block_stop") {
    OnBlockStop(data);
  } else if (type == "message_delta") {
    OnMessageDelta(data);
  } else if (type == "message_stop") {
    OnMessageStop();
  } else if (type == "error") {
    OnError(data);
  } else {
    other_.Note(type, out_.other_events);
  }
}

void MessagesAccumulator::MergeUsage(const Json& usage) {
  if (!out_.usage.is_object()) out_.usage = Json::object();
  // The SDK's accumulation: message_delta's counts replace those of
  // message_start, a null leaves the earlier value.
  for (const auto& [key, value] : usage.items())
    if (!value.is_null()) out_.usage[key] = value;
}

void MessagesAccumulator::OnMessageStart(const Json& data) {
  if (started_) {
    Report("MSG-START-FIRST", "/type", "a second message_start");
    return;
  }
  started_ = true;
  auto m = data.find("message");
  if (m == data.end() || !m->is_object()) {
    Report("MSG-EVENT-JSON", "/message", "message_start without a message object");
    return;
  }
  out_.id = StringAt(*m, "id");
  out_.model = StringAt(*m, "model");
  auto u = m->find("usage");
  if (u == m->end() || !u->is_object()) {
    Report("MSG-USAGE", "/message/usage", "message_start's message has no usage object");
  } else {
    MergeUsage(*u);
  }
}

MessagesAccumulator::Block* MessagesAccumulator::BlockOf(const Json& data, std::string_view type) {
  const auto index = IndexAt(data, "index");
  if (!index) {
    Report("MSG-EVENT-JSON", "/index",
           Format("'{}' without an index (an integer from 0 to 2^63-1)", type));
    return nullptr;
  }
  auto it = blocks_.find(*index);
  if (it == blocks_.end()) {
    Report("MSG-BLOCK-ORDER", "/index",
           Format("'{}' for index {}, a block never opened by content_block_start", type, *index));
    return nullptr;
  }
  return &it->second;
}

void MessagesAccumulator::OnBlockStart(const Json& data) {
  const auto index = IndexAt(data, "index");
  auto block = data.find("content_block");
  if (!index || block == data.end() || !block->is_object()) {
    Report("MSG-EVENT-JSON", index ? "/content_block" : "/index",
           index ? std::string("content_block_start without a content_block object")
                 : std::string("content_block_start without an index (an integer from 0)"));
    return;
  }
  if (blocks_.contains(*index)) {
    Report("MSG-BLOCK-ORDER", "/index", Format("index {} opened a second time", *index));
    return;
  }
  const auto expected = static_cast<std::int64_t>(blocks_.size());
  if (*index != expected)
    Report("MSG-BLOCK-ORDER", "/index",
           Format("index {} for the block opened as number {} (from 0)", *index, expected));
  Block b;
  b.item = MessagesItemFromBlock(*block);
  blocks_.emplace(*index, std::move(b));
}

void MessagesAccumulator::OnBlockDelta(const Json& data) {
  Block* b = BlockOf(data, "content_block_delta");
  if (!b) return;
  if (b->stopped)
    Report("MSG-BLOCK-ORDER", "/index",
           Format("a delta for index {} after its content_block_stop", data["index"].dump()));
  auto delta = data.find("delta");
  if (delta == data.end() || !delta->is_object() || StringAt(*delta, "type").empty()) {
    Report("MSG-EVENT-JSON", "/delta", "content_block_delta without a delta object with a type");
    return;
  }
  ApplyDelta(*b, StringAt(*delta, "type"), *delta);
}

void MessagesAccumulator::ApplyDelta(Block& b, std::string_view type, const Json& delta) {
  const std::string_view want = BlockOfDelta(type);
  if (want.empty()) {
    other_.Note(Format("content_block_delta:{}", type), out_.other_events);
    return;
  }
  const std::string& block_type = b.item.type;
  if (want == "tool_use" ? !TakesInputJson(block_type) : block_type != want) {
    Report("MSG-DELTA-TYPE", "/delta/type",
           Format("a {} for a '{}' block (it belongs to a '{}' block)", type, block_type, want));
    return;
  }
  const std::string field(DeltaField(type));
  auto v = delta.find(field);
  const bool ok = type == "citations_delta" ? v != delta.end() && v->is_object()
                                            : v != delta.end() && v->is_string();
  if (!ok) {
    Report("MSG-EVENT-JSON", Format("/delta/{}", field),
           Format("a {} without {} {}", type, type == "citations_delta" ? "an object" : "a string",
                  field));
    return;
  }
  if (type == "text_delta" || type == "thinking_delta") {
    b.item.text += v->get_ref<const std::string&>();
  } else if (type == "signature_delta") {
    b.item.signature = v->get<std::string>();  // sent whole, once: the SDK assigns it
  } else if (type == "input_json_delta") {
    b.partial_json += v->get_ref<const std::string&>();
    b.json_deltas = true;
  } else {
    if (!b.item.raw.contains("citations") || !b.item.raw["citations"].is_array())
      b.item.raw["citations"] = Json::array();
    b.item.raw["citations"].push_back(*v);
  }
}

void MessagesAccumulator::OnBlockStop(const Json& data) {
  Block* b = BlockOf(data, "content_block_stop");
  if (!b) return;
  if (b->stopped) {
    Report("MSG-BLOCK-ORDER", "/index",
           Format("index {} closed a second time", data["index"].dump()));
    return;
  }
  b->stopped = true;
  if (!b->json_deltas || b->partial_json.empty()) return;  // the SDK keeps the start's input
  auto input = ReadJson("input_json_delta", b->partial_json);
  if (!input || !input->is_object()) {
    Report("MSG-TOOL-INPUT-JSON", "",
           Format("block {} ('{}'): its input_json_delta joined ({} bytes) is {}",
                  data["index"].dump(), b->item.type, b->partial_json.size(),
                  input ? Format("{}, not an object", JsonTypeNameWithArticle(*input))
                        : Format("not JSON: {}", input.error().what)));
    return;
  }
  if (b->item.raw.is_object()) b->item.raw["input"] = std::move(*input);
}

void MessagesAccumulator::OnMessageDelta(const Json& data) {
  message_delta_ = true;
  auto delta = data.find("delta");
  if (delta == data.end() || !delta->is_object()) {
    Report("MSG-EVENT-JSON", "/delta", "message_delta without a delta object");
  } else {
    auto reason = delta->find("stop_reason");
    if (reason != delta->end() && reason->is_string()) out_.status = *reason;
    if (reason == delta->end() || !reason->is_string() ||
        !IsMessagesStopReason(reason->get_ref<const std::string&>()))
      Report("MSG-STOP-REASON", "/delta/stop_reason",
             Format("stop_reason {} is not one of the documented values",
                    reason == delta->end() ? "missing" : CapText(reason->dump(), 60)));
  }
  auto u = data.find("usage");
  if (u == data.end() || !u->is_object()) {
    Report("MSG-USAGE", "/usage", "message_delta without a usage object");
  } else {
    MergeUsage(*u);
  }
}

void MessagesAccumulator::OnMessageStop() {
  terminal_event_ = out_.events;
  out_.terminated = true;
  for (const auto& [index, b] : blocks_) {
    if (!b.stopped)
      Report("MSG-BLOCK-ORDER", "",
             Format("block {} was never closed (content_block_stop)", index));
  }
  if (!message_delta_)
    Report("MSG-STOP-REASON", "", "message_stop without a message_delta giving the stop_reason");
}

void MessagesAccumulator::OnError(const Json& data) {
  terminal_event_ = out_.events;
  out_.terminated = true;
  auto body = ErrorBodyFromJson(data);
  if (!body || body->message.empty())
    Report("MSG-EVENT-JSON", "/error", "an error event without error.message");
  if (!body) body = ErrorBody{CapText(data.dump(), 200), "", nullptr, nullptr};
  out_.error = std::move(body);
}

CanonicalResult MessagesAccumulator::Finish() {
  if (terminal_event_ == 0)
    log_.Report("MSG-ONE-STOP", 0, "", "the stream ended without message_stop or an error event");
  for (auto& [index, b] : blocks_) {
    if (b.item.kind == ItemKind::kFunctionCall && b.json_deltas && !b.partial_json.empty())
      b.item.arguments = std::move(b.partial_json);
    out_.items.push_back(std::move(b.item));
  }
  other_.Finish(out_.other_events);
  out_.findings = log_.Take();
  return std::move(out_);
}

}  // namespace llmconform::wire
