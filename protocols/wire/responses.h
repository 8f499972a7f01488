// The OpenAI Responses API surface (`POST /v1/responses`): its stream
// accumulator and body reader (docs/surfaces.md "Responses API").
//
// A stream is SSE events whose `data` is a JSON object with `type` (equal to
// the event's name) and `sequence_number` (0, 1, 2, …):
// `response.created`, `response.in_progress`, per output item
// `response.output_item.added` … deltas … `response.output_item.done`, then
// one terminal event (`response.completed`, `response.failed`,
// `response.incomplete`) or an `error` event. The accumulator reads every
// output item in order: messages (`output_text` and `refusal` parts),
// function calls (`call_id`, `name`, arguments as sent), reasoning (summary
// parts, reasoning text, encrypted content kept opaque) and any other kind
// (kept whole, named by its `type`). Event types it does not model (built-in
// tool progress, annotations) are named in `other_events`.
//
// It is lenient: every broken contract rule (the RESP-* rules of
// specs/wire/rules.json) is a LocatedFinding, once per rule (the first place,
// with a count of the others), and reading goes on the way a careful client
// would. Events after the terminal one are reported and not read.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/surface_reading.h"
#include "protocols/wire/surface.h"

namespace llmconform::wire {

// The contract rules this surface's reader reports (specs/wire/rules.json).
inline constexpr std::array<std::string_view, 14> kResponsesRuleIds = {
    "RESP-EVENT-JSON",
    "RESP-EVENT-NAME",
    "RESP-SEQUENCE",
    "RESP-CREATED-FIRST",
    "RESP-ITEM-ADDED-FIRST",
    "RESP-FUNCTION-CALL-IDS",
    "RESP-DELTAS-MATCH-DONE",
    "RESP-INDEXES",
    "RESP-ONE-TERMINAL",
    "RESP-AFTER-TERMINAL",
    "RESP-TERMINAL-OUTPUT",
    "RESP-TERMINAL-ID-MODEL",
    "RESP-STATUS",
    "RESP-BODY-RESPONSE",
};

// The item a Responses `output` entry (or an `output_item.added/done` item)
// describes. Values of the wrong type are left empty; `raw` is `item`.
OutputItem ResponsesItemFromJson(const Json& item);

// A non-streamed response body: a response object (`object: "response"`,
// `output`, `status`, …) or an error body.
CanonicalResult ReadResponsesBody(const Json& body);

class ResponsesAccumulator final : public SurfaceAccumulator {
 public:
  void AddEvent(const SseEventView& event) override;
  void NoteComments(std::size_t count) override;
  CanonicalResult Finish() override;

 private:
  struct ItemState {
    OutputItem item;
    std::int64_t output_index = 0;
    std::map<std::int64_t, std::string> parts;      // content_index -> text so far
    std::map<std::int64_t, std::string> summaries;  // summary_index -> text so far
    std::string arguments;                          // function_call_arguments deltas joined
    bool argument_deltas = false;
    bool done = false;
  };

  // Reports `rule` at the current event (ReportAt: at `event`, 0 for the stream).
  void Report(std::string_view rule, std::string_view pointer, std::string message);
  void ReportAt(std::string_view rule, std::size_t event, std::string_view pointer,
                std::string message);
  void CheckSequence(const Json& data);
  void Dispatch(std::string_view type, const Json& data);
  void OnResponseSnapshot(const Json& data);
  void OnItemAdded(const Json& data);
  void OnItemDone(const Json& data);
  void OnPartAdded(const Json& data, bool summary);
  void OnDelta(std::string_view type, const Json& data);
  void OnDone(std::string_view type, const Json& data);
  void OnTerminal(std::string_view type, const Json& data);
  void OnError(const Json& data);
  // The item an event about an existing item names (by output_index, else
  // item_id), reporting when there is none or the two disagree.
  ItemState* ItemOf(const Json& data, std::string_view type);
  void CompareTerminalOutput(const Json& output);

  CanonicalResult out_{.surface = Surface::kResponses};
  std::vector<ItemState> items_;
  std::map<std::int64_t, std::size_t> by_index_;              // output_index -> items_ position
  std::map<std::string, std::size_t, std::less<>> by_id_;     // item id -> items_ position
  FindingLog log_;
  OtherEvents other_;
  std::uint64_t next_sequence_ = 0;
  std::size_t terminal_event_ = 0;  // the terminal (or error) event's number, 0 before it
  bool any_json_ = false;           // a JSON event has been read (for RESP-CREATED-FIRST)
};

}  // namespace llmconform::wire
