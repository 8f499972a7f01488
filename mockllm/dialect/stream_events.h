// The event list a dialect's stream rewrites work on (mockllm/dialect_rewrite.h):
// a recorded stream cut into its SSE events by protocols/wire/sse_blocks.h,
// each with its recorded bytes, its data parsed, and the recorded time of
// its last byte; and the JSON helpers the rewrites share.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/trace.h"

namespace llmconform::mockllm::dialect {

struct StreamEvent {
  std::string raw;          // the bytes as recorded (written when !changed)
  std::string field_lines;  // the event's non-data lines (comments, event:, id:), each with "\n"
  OJson json;               // the data, parsed (is_json)
  std::string data;         // the data text
  bool is_json = false;     // data is a JSON object
  bool done = false;        // data is [DONE]
  bool changed = false;     // write field_lines + "data: " + json instead of raw
  bool reasoning = false;   // inserted to carry reasoning (the REASONING rewrites share it)
  std::int64_t t_ms = 0;
};

// A recorded stream as events: each event of the stream with the blocks
// before it that hold no data (comments), timed by the chunk holding its
// last byte; the bytes after the last event (blocks without data, a partial
// block) become a final entry that is never parsed. Data is read with
// base/json_read.h (what it refuses is not JSON). The stream's BOM belongs
// to no event: `bom` says it was there, and the writer puts it back first.
struct EventStream {
  bool bom = false;
  std::vector<StreamEvent> events;
};
EventStream SplitEvents(const std::vector<Chunk>& chunks);

// The bytes of `e`: as recorded unless a rewrite changed it, then its
// non-data lines and one `data:` line.
std::string Write(const StreamEvent& e);

// The JSON text of `j` as a rewrite writes it (one line).
std::string Dump(const OJson& j);

// j[key] when it is a string, else "" (value() would throw on another type).
std::string TextOr(const OJson& j, const char* key);
// The event's "type" (Responses, Messages), or "" when it is not JSON or has none.
std::string TypeOf(const StreamEvent& e);
// A choice's "index", or `fallback` when it is absent or not an integer.
std::int64_t ChoiceIndex(const OJson& choice, std::int64_t fallback);
bool IsString(const OJson& j, const char* key);
// The event is a chunk with a non-empty choices array.
bool HasChoices(const StreamEvent& e);
// The event is a chunk with a choice whose finish_reason is set.
bool HasFinish(const StreamEvent& e);

// Calls f(choice, delta) for every choice with a delta object; marks the
// event changed when f returns true.
template <typename F>
void ForEachDelta(std::vector<StreamEvent>& evs, F f) {
  for (StreamEvent& e : evs) {
    if (!HasChoices(e)) continue;
    for (OJson& c : e.json["choices"]) {
      if (!c.is_object() || !c.contains("delta") || !c["delta"].is_object()) continue;
      if (f(c, c["delta"])) e.changed = true;
    }
  }
}

// A chunk to insert next to `like`: its id, object, created, model and
// fingerprint, one choice with an empty delta and no finish_reason yet.
StreamEvent ChunkLike(const StreamEvent& like);

// Rebuilds `obj` with `key: value` right after `after` (or first).
OJson WithKeyAfter(const OJson& obj, std::string_view after, const std::string& key,
                   const OJson& value);

}  // namespace llmconform::mockllm::dialect
