#include "mockllm/dialect/stream_events.h"

#include "base/json_read.h"
#include "protocols/wire/sse_blocks.h"

namespace llmconform::mockllm::dialect {
namespace {

// The event whose recorded bytes are `raw`.
StreamEvent ReadEvent(std::string_view raw, std::int64_t t_ms) {
  StreamEvent e;
  e.raw.assign(raw);
  e.t_ms = t_ms;
  bool has_data = false;
  wire::ForEachSseLine(raw, [&](const wire::SseLine& line, std::string_view text) {
    if (line.kind == wire::SseLine::Kind::kBlank) return;
    if (line.IsData()) {
      if (has_data) e.data.push_back('\n');
      e.data.append(line.value);
      has_data = true;
    } else {
      e.field_lines.append(text).push_back('\n');
    }
  });
  e.done = e.data == "[DONE]";
  if (!e.done) {
    OJson j = ReadOrderedJsonOrDiscarded(e.data);
    if (j.is_object()) {
      e.json = std::move(j);
      e.is_json = true;
    }
  }
  return e;
}

}  // namespace

EventStream SplitEvents(const std::vector<Chunk>& chunks) {
  wire::TimedStream stream;
  for (const Chunk& c : chunks) stream.Append(c.raw, c.t_ms);
  const std::string_view bytes = stream.bytes();
  EventStream out;
  out.bom = bytes.starts_with(wire::kSseBom);
  std::size_t from = out.bom ? wire::kSseBom.size() : 0;  // blocks without data join the next event
  for (const wire::SseBlock& b : wire::SplitSseBlocks(stream)) {
    if (!b.IsEvent()) continue;
    out.events.push_back(ReadEvent(bytes.substr(from, b.end - from), b.t_ms));
    from = b.end;
  }
  if (from < bytes.size()) {
    StreamEvent tail;
    tail.raw.assign(bytes.substr(from));
    tail.t_ms = stream.TimeAt(bytes.size() - 1);
    out.events.push_back(std::move(tail));
  }
  return out;
}

std::string Dump(const OJson& j) { return DumpJson(j); }

std::string Write(const StreamEvent& e) {
  if (!e.changed) return e.raw;
  return e.field_lines + "data: " + (e.is_json ? Dump(e.json) : e.data) + "\n\n";
}

std::string TextOr(const OJson& j, const char* key) {
  const auto it = j.is_object() ? j.find(key) : j.end();
  return it != j.end() && it->is_string() ? it->get<std::string>() : std::string();
}

std::string TypeOf(const StreamEvent& e) { return e.is_json ? TextOr(e.json, "type") : ""; }

std::int64_t ChoiceIndex(const OJson& choice, std::int64_t fallback) {
  const auto it = choice.find("index");
  return it != choice.end() && it->is_number_integer() ? it->get<std::int64_t>() : fallback;
}

bool IsString(const OJson& j, const char* key) { return j.contains(key) && j[key].is_string(); }

bool HasChoices(const StreamEvent& e) {
  return e.is_json && e.json.contains("choices") && e.json["choices"].is_array() &&
         !e.json["choices"].empty();
}

bool HasFinish(const StreamEvent& e) {
  if (!HasChoices(e)) return false;
  for (const OJson& c : e.json["choices"])
    if (c.is_object() && c.contains("finish_reason") && !c["finish_reason"].is_null()) return true;
  return false;
}

StreamEvent ChunkLike(const StreamEvent& like) {
  StreamEvent e;
  e.is_json = true;
  e.changed = true;
  e.t_ms = like.t_ms;
  e.json = like.json;
  e.json.erase("obfuscation");
  e.json.erase("p");
  if (e.json.contains("usage")) e.json["usage"] = nullptr;
  OJson choice = OJson::object();
  choice["index"] = 0;
  choice["delta"] = OJson::object();
  if (HasChoices(like) && like.json["choices"][0].is_object()) {
    for (const auto& [k, v] : like.json["choices"][0].items()) {
      if (k == "index" || k == "delta") continue;
      choice[k] = k == "finish_reason" || k == "logprobs" ? OJson(nullptr) : v;
    }
  }
  e.json["choices"] = OJson::array({choice});
  return e;
}

OJson WithKeyAfter(const OJson& obj, std::string_view after, const std::string& key,
                   const OJson& value) {
  OJson out = OJson::object();
  if (after.empty()) out[key] = value;
  for (const auto& [k, v] : obj.items()) {
    if (k == key) continue;
    out[k] = v;
    if (!after.empty() && k == after) out[key] = value;
  }
  if (!out.contains(key)) out[key] = value;
  return out;
}

}  // namespace llmconform::mockllm::dialect
