// API surfaces: the LLM APIs the toolkit reads (docs/surfaces.md).
//
// A surface is one wire protocol for asking a model and reading its answer:
// OpenAI's Chat Completions (`POST …/chat/completions`) and Responses API
// (`POST …/responses`). Each has a stream accumulator and a body reader behind
// one interface, and all of them produce the same canonical result: the output
// items in order (messages, reasoning, function calls, and items of kinds the
// toolkit does not model, kept and named), the text and reasoning they add
// up to, the stop status, usage, error and located findings. The next
// surfaces (Anthropic Messages, Gemini) are SSE streams of JSON events and
// JSON bodies too: they plug in as one more enum value, path rule,
// `SurfaceAccumulator` and body reader; Gemini (gemini.h) is one.
#pragma once

#include <cstddef>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "protocols/wire/chat.h"
#include "protocols/wire/sse.h"

namespace llmconform::wire {

enum class Surface {
  kChat,       // OpenAI Chat Completions: unnamed `data:` chunks, `[DONE]`
  kResponses,  // OpenAI Responses API: named events, `data.type`, `sequence_number`
  kGemini,     // Google's Gemini API: unnamed `data:` GenerateContentResponses, no [DONE]
  kMessages,   // Anthropic Messages API: named events, `data.type`, block `index`
};

// "chat" | "responses" | "gemini" | "messages": the name in trace headers,
// journals and `--api`.
std::string_view SurfaceName(Surface surface);
std::optional<Surface> SurfaceFromName(std::string_view name);
// Every surface, in enum order.
std::vector<Surface> AllSurfaces();

// The surface a request path belongs to, by its last segments (a query is
// ignored): `…/chat/completions` is Chat; `…/responses` (create),
// `…/responses/{id}` (retrieve), `…/responses/{id}/cancel`,
// `…/responses/compact` and `…/responses/input_tokens` are the Responses API;
// `…/models/{model}:generateContent` and `…:streamGenerateContent` (under
// /v1beta, /v1 or Vertex AI's `…/publishers/google/models/`) are Gemini.
// `…/messages` (create) and `…/messages/count_tokens` are Anthropic's
// Messages API, but not `…/threads/{id}/messages` (OpenAI's Assistants).
// nullopt for anything else.
std::optional<Surface> SurfaceOfPath(std::string_view path);

// A broken contract rule (specs/wire/rules.json), placed: `event` is the
// 1-based number of the SSE event it is in (0: a non-streamed body, or the
// stream as a whole), `pointer` the JSON pointer in that event's data (or
// the body) of the offending value ("" for the whole event). `message`
// starts with the place ("event 7 /sequence_number: …").
struct LocatedFinding {
  std::string rule;
  std::string message;
  std::size_t event = 0;
  std::string pointer;
  friend bool operator==(const LocatedFinding&, const LocatedFinding&) = default;
};

enum class ItemKind {
  kMessage,       // assistant text (and refusal)
  kReasoning,     // reasoning: summary and/or reasoning text, encrypted content opaque
  kFunctionCall,  // a call of a function tool
  kOther,         // a kind the toolkit does not model (web_search_call, mcp_call, …)
};
std::string_view ItemKindName(
    ItemKind kind);  // "message" | "reasoning" | "function_call" | "other"

// One output item, as a client reading the surface ends up with it.
struct OutputItem {
  ItemKind kind = ItemKind::kOther;
  std::string type;     // the surface's own name for it ("message", "web_search_call", …)
  std::string id;       // "" when the surface gave none
  std::string text;     // message: output text parts joined; reasoning: its reasoning text
  std::string refusal;  // message: refusal text
  std::vector<std::string> summary;      // reasoning: the summary parts' text
  std::optional<std::string> encrypted;  // reasoning: encrypted content, opaque (Gemini: the
                                         // thoughtSignature of any item)
  std::optional<std::string> signature;  // reasoning: Anthropic's thinking signature, opaque
  std::string call_id;                   // function call: the id its result must cite
  std::string name;                      // function call: the function
  std::string arguments;                 // function call: JSON text as sent, not reparsed
  std::optional<std::string> status;     // the item's own status, when it has one
  Json raw = nullptr;  // the item as last sent whole (`output_item.done`, the body)
  friend bool operator==(const OutputItem&, const OutputItem&) = default;
};

// What every surface's accumulator and body reader produce.
struct CanonicalResult {
  Surface surface = Surface::kChat;
  std::string id;                 // the response's id ("" when none was sent)
  std::string model;              // the model named by the response ("" when none)
  std::vector<OutputItem> items;  // every output item, in output order
  // The stop status in the surface's own words: Chat's finish_reason, the
  // Responses API's status ("completed", "incomplete", "failed"), Gemini's
  // finishReason ("STOP", "MAX_TOKENS", …).
  std::optional<std::string> status;
  // Responses: incomplete_details.reason; Gemini: promptFeedback.blockReason.
  std::optional<std::string> incomplete_reason;
  Json usage = nullptr;
  std::optional<ErrorBody> error;  // an error body, error event or failed response's error
  bool terminated = false;         // the stream's end was announced ([DONE], a terminal event)
  std::size_t events = 0;          // SSE events read (0 for a body)
  std::vector<std::string> other_events;  // event types not modelled, first seen first, once each
  std::vector<LocatedFinding> findings;
  friend bool operator==(const CanonicalResult&, const CanonicalResult&) = default;

  std::string Text() const;       // every message item's text, in order
  std::string Reasoning() const;  // every reasoning item's summary parts, then its text, in order
  std::vector<const OutputItem*> FunctionCalls() const;
};

// {"surface","id","model","items":[…],"text","reasoning","status",
//  "incomplete_reason","usage","error"?,"terminated","events","other_events",
//  "findings":[{"rule","message","event","pointer"}]}; an item is
// {"kind","type","id",…} with only the fields of its kind.
Json ToJson(const CanonicalResult& result);

// One surface's stream reader: SSE events in, the canonical result out.
// Any split of the byte stream into SseParser::Feed calls gives the same
// events and so the same result. Memory is bounded by what is accumulated
// (the output's text and items), never by the number of events.
class SurfaceAccumulator {
 public:
  virtual ~SurfaceAccumulator() = default;
  virtual void AddEvent(const SseEventView& event) = 0;
  // Comments the SSE parser saw (keep-alives).
  virtual void NoteComments(std::size_t count) = 0;
  // Ends the stream; call once.
  virtual CanonicalResult Finish() = 0;
};

std::unique_ptr<SurfaceAccumulator> MakeAccumulator(Surface surface);

// Parses and accumulates a whole raw SSE body of `surface`.
CanonicalResult AccumulateSurfaceStream(Surface surface, std::string_view raw_sse);
// The same, the bytes fed to the SSE parser in reads split at `cuts`
// (ascending offsets, each at most raw_sse.size()): the result must not
// depend on them (the chunking-invariance tests and fuzzers).
CanonicalResult AccumulateSurfaceStreamSplit(Surface surface, std::string_view raw_sse,
                                             std::span<const std::size_t> cuts);

// Reads a non-streamed response body of `surface` (parsed JSON): a response
// object, or an error body (then `error` is set and no item is read).
CanonicalResult ReadSurfaceBody(Surface surface, const Json& body);

}  // namespace llmconform::wire
