// Anthropic Messages' rewrites (DIA-MSG-*, mockllm/dialect/rewrites.h): each
// touches only the events (or the body member) its deviation is about. A
// stream whose tool input does not join into a JSON object (a cut reply) is
// left as it is by the rewrites that would have to parse it.
#include <map>

#include "base/json_read.h"
#include "mockllm/dialect/rewrites.h"

namespace llmconform::mockllm::dialect {
namespace {

// The event's block index, or -1 when it has none.
std::int64_t IndexOf(const StreamEvent& e) {
  if (!e.is_json || !e.json.contains("index") || !e.json["index"].is_number_integer()) return -1;
  return e.json["index"].get<std::int64_t>();
}

// The content_block of a content_block_start of `block_type`, or null.
OJson* StartedBlock(StreamEvent& e, std::string_view block_type) {
  if (TypeOf(e) != "content_block_start" || !e.json.contains("content_block")) return nullptr;
  OJson& b = e.json["content_block"];
  return TextOr(b, "type") == block_type ? &b : nullptr;
}

// The delta of a content_block_delta of `delta_type`, or null.
OJson* DeltaOf(StreamEvent& e, std::string_view delta_type) {
  if (TypeOf(e) != "content_block_delta" || !e.json.contains("delta")) return nullptr;
  OJson& d = e.json["delta"];
  return TextOr(d, "type") == delta_type ? &d : nullptr;
}

// A streamed tool_use block: where it starts and which events carry its input.
struct ToolBlock {
  std::size_t start = 0;
  std::vector<std::size_t> deltas;  // its input_json_delta events, in order
  std::string joined;               // their partial_json joined
};

// The tool_use blocks of `evs` by index.
std::map<std::int64_t, ToolBlock> ToolBlocks(std::vector<StreamEvent>& evs) {
  std::map<std::int64_t, ToolBlock> blocks;
  for (std::size_t i = 0; i < evs.size(); ++i) {
    const std::int64_t index = IndexOf(evs[i]);
    if (index < 0) continue;
    if (StartedBlock(evs[i], "tool_use")) {
      blocks[index].start = i;
      continue;
    }
    auto it = blocks.find(index);
    OJson* d = DeltaOf(evs[i], "input_json_delta");
    if (it == blocks.end() || !d) continue;
    it->second.deltas.push_back(i);
    it->second.joined += TextOr(*d, "partial_json");
  }
  return blocks;
}

// The joined input as an object, or nullopt (a cut or broken input).
std::optional<OJson> InputObject(const ToolBlock& b) {
  OJson j = ReadOrderedJsonOrDiscarded(b.joined);
  if (!j.is_object()) return std::nullopt;
  return j;
}

// Removes the events whose positions `drop` holds.
void DropEvents(std::vector<StreamEvent>& evs, const std::vector<bool>& drop) {
  std::size_t i = 0;
  std::erase_if(evs, [&](const StreamEvent&) { return drop[i++]; });
}

// message_start's usage all zeros; its counts move to the message_delta
// that carries usage (added there when it lacks them).
void MsgStartUsageZero(std::vector<StreamEvent>& evs, const OJson&) {
  OJson counts;
  for (StreamEvent& e : evs) {
    if (TypeOf(e) != "message_start" || !e.json.contains("message")) continue;
    OJson& m = e.json["message"];
    if (!m.is_object() || !m.contains("usage") || !m["usage"].is_object()) return;
    counts = m["usage"];
    m["usage"] = OJson{{"input_tokens", 0}, {"output_tokens", 0}};
    e.changed = true;
    break;
  }
  if (counts.is_null()) return;
  for (StreamEvent& e : evs) {
    if (TypeOf(e) != "message_delta" || !e.json.contains("usage") || !e.json["usage"].is_object())
      continue;
    OJson usage = OJson::object();
    for (const char* key :
         {"input_tokens", "cache_creation_input_tokens", "cache_read_input_tokens"})
      if (counts.contains(key) && !e.json["usage"].contains(key)) usage[key] = counts[key];
    if (usage.empty()) continue;
    for (const auto& [key, value] : e.json["usage"].items()) usage[key] = value;
    e.json["usage"] = std::move(usage);
    e.changed = true;
  }
}

// Each tool_use block's input in its content_block_start, its deltas gone.
void MsgToolInputAtStart(std::vector<StreamEvent>& evs, const OJson&) {
  std::vector<bool> drop(evs.size(), false);
  for (auto& [index, b] : ToolBlocks(evs)) {
    auto input = InputObject(b);
    if (!input) continue;
    (*StartedBlock(evs[b.start], "tool_use"))["input"] = std::move(*input);
    evs[b.start].changed = true;
    for (std::size_t i : b.deltas) drop[i] = true;
  }
  DropEvents(evs, drop);
}

// Each tool_use block's input in its first input_json_delta, whole.
void MsgToolInputWholeDelta(std::vector<StreamEvent>& evs, const OJson&) {
  std::vector<bool> drop(evs.size(), false);
  for (auto& [index, b] : ToolBlocks(evs)) {
    if (b.deltas.empty() || !InputObject(b)) continue;
    if (b.deltas.size() == 1 && TextOr(evs[b.deltas[0]].json["delta"], "partial_json") == b.joined)
      continue;
    StreamEvent& first = evs[b.deltas[0]];
    first.json["delta"]["partial_json"] = b.joined;
    first.changed = true;
    for (std::size_t k = 1; k < b.deltas.size(); ++k) drop[b.deltas[k]] = true;
  }
  DropEvents(evs, drop);
}

// No signature_delta; a thinking block's start keeps an empty signature.
void MsgThinkingNoSignature(std::vector<StreamEvent>& evs, const OJson&) {
  std::vector<bool> drop(evs.size(), false);
  for (std::size_t i = 0; i < evs.size(); ++i) {
    if (DeltaOf(evs[i], "signature_delta")) drop[i] = true;
    OJson* b = StartedBlock(evs[i], "thinking");
    if (b && b->contains("signature") && TextOr(*b, "signature") != "") {
      (*b)["signature"] = "";
      evs[i].changed = true;
    }
  }
  DropEvents(evs, drop);
}

void BodyMsgThinkingNoSignature(BodyView& b, const OJson&, bool) {
  if (b.r.status >= 400 || !b.json.is_object() || !b.json.contains("content") ||
      !b.json["content"].is_array())
    return;
  for (OJson& block : b.json["content"]) {
    if (TextOr(block, "type") != "thinking" || TextOr(block, "signature").empty()) continue;
    block["signature"] = "";
    b.changed = true;
  }
}

// A thinking block's content_block_start without `signature`.
void MsgThinkingStartNoSignature(std::vector<StreamEvent>& evs, const OJson&) {
  for (StreamEvent& e : evs) {
    OJson* b = StartedBlock(e, "thinking");
    if (b && b->erase("signature") > 0) e.changed = true;
  }
}

// {"type":"error","error":{"type","message"}} becomes LiteLLM's OpenAI
// envelope: {"error":{"message","type":"None","param":"None","code":"STATUS"}}.
void BodyMsgOpenAIError(BodyView& b, const OJson&, bool) {
  if (b.r.status < 400 || !b.json.is_object() || TextOr(b.json, "type") != "error" ||
      !b.json.contains("error") || !b.json["error"].is_object())
    return;
  b.json = OJson{{"error", OJson{{"message", TextOr(b.json["error"], "message")},
                                 {"type", "None"},
                                 {"param", "None"},
                                 {"code", std::to_string(b.r.status)}}}};
  b.changed = true;
}

}  // namespace

void AddMessagesRows(std::vector<Rewrite>& t) {
  const OJson none = OJson::object();
  t.push_back({{"DIA-MSG-START-USAGE-ZERO",
                "message_start's usage {input_tokens: 0, output_tokens: 0}; its input and cache "
                "counts on message_delta",
                ""},
               none,
               MsgStartUsageZero,
               nullptr});
  t.push_back({{"DIA-MSG-TOOL-INPUT-AT-START",
                "each streamed tool_use block's input whole in its content_block_start, no "
                "input_json_delta",
                ""},
               none,
               MsgToolInputAtStart,
               nullptr});
  t.push_back({{"DIA-MSG-TOOL-INPUT-WHOLE-DELTA",
                "each streamed tool_use block's input whole in one input_json_delta", ""},
               none,
               MsgToolInputWholeDelta,
               nullptr});
  t.push_back(
      {{"DIA-MSG-THINKING-NO-SIGNATURE",
        "thinking blocks unsigned: no signature_delta, an empty signature (stream and body)", ""},
       none,
       MsgThinkingNoSignature,
       BodyMsgThinkingNoSignature});
  t.push_back({{"DIA-MSG-THINKING-START-NO-SIGNATURE",
                "a thinking block's content_block_start without `signature` (the signature_delta "
                "stays)",
                ""},
               none,
               MsgThinkingStartNoSignature,
               nullptr});
  t.push_back(
      {{"DIA-MSG-OPENAI-ERROR-BODY",
        "error bodies in OpenAI's envelope: "
        "{\"error\":{\"message\",\"type\":\"None\",\"param\":\"None\",\"code\":\"STATUS\"}}",
        ""},
       none,
       nullptr,
       BodyMsgOpenAIError});
}

}  // namespace llmconform::mockllm::dialect
