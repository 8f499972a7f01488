// Anthropic's Messages API surface (`POST /v1/messages`): its stream
// accumulator and body reader (docs/surfaces.md "Anthropic Messages API").
//
// A stream is SSE events whose `data` is a JSON object with `type` equal to
// the event's name: `message_start` (the message with empty content and the
// first usage), then per content block `content_block_start` (its `index`,
// from 0), `content_block_delta` × N (`text_delta`, `input_json_delta`,
// `thinking_delta`, `signature_delta`, `citations_delta`),
// `content_block_stop`; then `message_delta` (`stop_reason`, the final
// usage) and `message_stop`. `ping` may come anywhere; an `error` event
// (`overloaded_error`, …) may end the stream instead.
//
// Blocks become output items in index order: `text` a message item,
// `thinking` a reasoning item (its signature kept opaque), `redacted_thinking`
// a reasoning item with its `data` as encrypted content, `tool_use` a
// function call (`call_id` = `id`, `arguments` = the `input_json_delta`s
// joined as sent, else the block's `input` serialised), any other block
// (`server_tool_use`, `web_search_tool_result`, `mcp_tool_use`, …) an `other`
// item named by its type. Unmodelled event and delta types are named in
// `other_events` ("content_block_delta:TYPE" for a delta).
//
// It is lenient: every broken rule (the MSG-* rules of specs/wire/rules.json)
// is a LocatedFinding, once per rule, and reading goes on as the Anthropic
// SDK's accumulator would. Events after `message_stop` (or `error`) are
// reported and not read. Memory is bounded by what is accumulated (blocks'
// text and input JSON), never by the number of events.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/surface.h"
#include "protocols/wire/surface_reading.h"

namespace llmconform::wire {

// The contract rules this surface's reader reports (specs/wire/rules.json).
inline constexpr std::array<std::string_view, 11> kMessagesRuleIds = {
    "MSG-EVENT-JSON", "MSG-EVENT-NAME",      "MSG-START-FIRST",  "MSG-BLOCK-ORDER",
    "MSG-DELTA-TYPE", "MSG-TOOL-INPUT-JSON", "MSG-USAGE",        "MSG-STOP-REASON",
    "MSG-AFTER-STOP", "MSG-ONE-STOP",        "MSG-BODY-MESSAGE",
};

// The documented stop reasons (the API reference's Message.stop_reason).
bool IsMessagesStopReason(std::string_view reason);

// The item a content block (of a body's `content`, or a
// `content_block_start`) describes. Values of the wrong type are left
// empty; `raw` is `block`.
OutputItem MessagesItemFromBlock(const Json& block);

// A non-streamed response body: a message object (`type: "message"`,
// `content`, `stop_reason`, `usage`, …) or an error body
// (`{"type":"error","error":{"type","message"}}`).
CanonicalResult ReadMessagesBody(const Json& body);

class MessagesAccumulator final : public SurfaceAccumulator {
 public:
  void AddEvent(const SseEventView& event) override;
  void NoteComments(std::size_t count) override;
  CanonicalResult Finish() override;

 private:
  struct Block {
    OutputItem item;
    std::string partial_json;  // input_json_delta joined
    bool json_deltas = false;
    bool stopped = false;
  };

  void Report(std::string_view rule, std::string_view pointer, std::string message);
  void Dispatch(std::string_view type, const Json& data);
  void OnMessageStart(const Json& data);
  void OnBlockStart(const Json& data);
  void OnBlockDelta(const Json& data);
  void ApplyDelta(Block& block, std::string_view type, const Json& delta);
  void OnBlockStop(const Json& data);
  void OnMessageDelta(const Json& data);
  void OnMessageStop();
  void OnError(const Json& data);
  // The block an event names by `index`, reporting when it was never opened.
  Block* BlockOf(const Json& data, std::string_view type);
  void MergeUsage(const Json& usage);

  CanonicalResult out_{.surface = Surface::kMessages};
  FindingLog log_;
  std::map<std::int64_t, Block> blocks_;  // index -> block, read in index order
  OtherEvents other_;
  std::size_t terminal_event_ = 0;  // message_stop's (or error's) number, 0 before it
  bool started_ = false;            // message_start read
  bool any_event_ = false;          // an event other than ping read
  bool message_delta_ = false;      // a message_delta read
};

}  // namespace llmconform::wire
