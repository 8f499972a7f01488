// Turns a Chat Completions stream (SSE events of `chat.completion.chunk`
// objects) into the final assistant message, tolerating every documented
// provider deviation (docs/protocols.md "Provider dialects") and reporting each one as a Finding
// named by the deviation's id in specs/wire/dialects.json (kAccumulatorDeviationIds); a
// stream that breaks a rule of its own (WIRE-STREAM-*, specs/wire/rules.json) is reported
// under that rule.
//
// Accumulation (docs/protocols.md "wire"): tool calls are keyed by `index`; `id`,
// `type` and `function.name` are set from the first non-empty value and never
// concatenated; `arguments` fragments are concatenated. A delta without
// `index` carries a whole call (Gemini, old Ollama) and becomes the next call
// unless its id names a call already seen. Usage may come in a chunk with
// `choices: []`. Tool calls are detected from the accumulated `tool_calls`,
// never from `finish_reason`.
//
// `delta.content` may be an array of typed blocks (Mistral's reasoning
// models: `thinking` blocks, then `text`). Then the accumulated content is
// that array as the non-streamed message would carry it: a block continuing
// the last block of its type is merged into it (text appended; a thinking
// block's parts appended), string content after the array becomes a `text`
// block, and blocks of other types are kept whole, in order, and reported
// (WIRE-STREAM-UNKNOWN-CONTENT-BLOCK), never dropped.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <string_view>

#include "base/error.h"
#include "protocols/wire/chat.h"
#include "protocols/wire/sse.h"

namespace llmconform::wire {

// The deviations (specs/wire/dialects.json ids) the accumulator reports;
// each has a `reader` entry in the catalogue saying what it does with it.
inline constexpr std::array<std::string_view, 18> kAccumulatorDeviationIds = {
    "DIA-KEEPALIVE-COMMENT",     "DIA-NAMED-EVENT",
    "DIA-ERROR-IN-STREAM",       "DIA-EMPTY-FIRST-CHUNK",
    "DIA-TOOLCALL-NO-INDEX",     "DIA-TOOLCALL-ID-REPEATED",
    "DIA-TOOLCALL-ID-CHANGED",   "DIA-TOOLCALL-NO-TYPE",
    "DIA-REASONING-CONTENT",     "DIA-REASONING-FIELD",
    "DIA-ROLE-EVERY-CHUNK",      "DIA-FINISH-REASON-NOT-TOOL-CALLS",
    "DIA-FINISH-REASON-CHANGED", "DIA-FINISH-REASON-REPEATED",
    "DIA-NO-FINISH-REASON",      "DIA-NO-DONE",
    "DIA-USAGE-X-GROQ",          "DIA-CONTENT-ARRAY",
};

struct AccumulatedStream {
  ChatMessage message;  // role "assistant"; content "" when no text arrived
  std::optional<std::string> finish_reason;
  Json usage = nullptr;            // the last non-null `usage`, also one beside an `error`
  std::optional<ErrorBody> error;  // an `error` object seen in a data event
  bool saw_done = false;
  std::size_t chunks = 0;  // JSON chunks accumulated
  Findings findings;
};

class StreamAccumulator {
 public:
  // Adds one SSE event (its `data` should be a chunk, `[DONE]` or an error).
  void AddEvent(const SseEventView& event);
  void AddEvent(const SseEvent& event) {
    AddEvent(SseEventView{event.event, event.data, event.id});
  }
  // Adds one parsed chunk object.
  void AddChunk(const Json& chunk);
  // Comments seen by the SSE parser (keep-alives).
  void NoteComments(std::size_t count);
  // Ends the stream and returns the result; call once.
  AccumulatedStream Finish();

 private:
  void AddFinding(std::string rule, std::string message);
  void AddDelta(const Json& delta, std::size_t chunk_no);
  void AddToolCallDelta(const Json& tc, std::size_t chunk_no, std::size_t pos);
  void AddContentBlocks(const Json& blocks, std::size_t chunk_no);
  void AppendBlock(const Json& block);

  AccumulatedStream out_;
  std::string content_;
  bool any_content_ = false;
  std::optional<Json> blocks_;  // set once content arrived as an array of blocks
  std::string reasoning_content_;
  bool any_reasoning_content_ = false;
  std::string reasoning_;  // Ollama's `reasoning`
  bool any_reasoning_ = false;
  std::map<int, ToolCall> calls_;  // by index
  int next_free_index_ = 0;
  std::size_t events_ = 0;
  bool after_done_reported_ = false;
  std::map<std::string, bool, std::less<>> reported_;  // one finding per rule and kind
};

// Parses and accumulates a whole raw SSE body.
AccumulatedStream AccumulateStream(std::string_view raw_sse);

}  // namespace llmconform::wire
