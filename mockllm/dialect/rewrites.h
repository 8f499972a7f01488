// The rewrites of the deviations replay can produce (mockllm/dialect_rewrite.h):
// each deviation's stream rewrite (stream_rewrites.cpp), body rewrite
// (body_rewrites.cpp), parameters with their defaults and documentation
// (rewrite_table.cpp).
//
// A stream rewrite edits the event list in place and marks each event it
// changes (StreamEvent::changed); a body rewrite edits the parsed body of a
// non-streamed reply and sets BodyView::changed, or turns the reply into a
// stream. A rewrite touches only what its deviation is about.
#pragma once

#include <functional>
#include <string>
#include <string_view>
#include <vector>

#include "mockllm/dialect/stream_events.h"
#include "mockllm/dialect_rewrite.h"

namespace llmconform::mockllm::dialect {

using StreamRewrite = std::function<void(std::vector<StreamEvent>&, const OJson& params)>;

// A non-streamed reply being rewritten.
struct BodyView {
  RecordedResponse& r;
  OJson json;  // the parsed body (discarded when not JSON)
  bool changed = false;
};
using BodyRewrite = std::function<void(BodyView&, const OJson& params, bool stream_requested)>;

// Stream rewrites, one per deviation (the table names which).
void KeepaliveComments(std::vector<StreamEvent>& evs, const OJson& p);
void EmptyFirstChunk(std::vector<StreamEvent>& evs, const OJson& p);
void ContentFilterResults(std::vector<StreamEvent>& evs, const OJson& p);
void WholeToolCalls(std::vector<StreamEvent>& evs, const OJson& p);
void ToolCallsWithoutIndex(std::vector<StreamEvent>& evs, const OJson& p);
void ToolCallIdRepeated(std::vector<StreamEvent>& evs, const OJson& p);
void ToolCallNoType(std::vector<StreamEvent>& evs, const OJson& p);
// Puts the reasoning text in `field` of a reasoning chunk before the reply's
// first words (one chunk shared by every reasoning field).
StreamRewrite StreamReasoning(std::string field);
void ThinkTags(std::vector<StreamEvent>& evs, const OJson& p);
void RoleEveryChunk(std::vector<StreamEvent>& evs, const OJson& p);
void FinishReasonNotToolCalls(std::vector<StreamEvent>& evs, const OJson& p);
void FinishReasonRepeated(std::vector<StreamEvent>& evs, const OJson& p);
void FinishReasonOmitted(std::vector<StreamEvent>& evs, const OJson& p);
void NoDone(std::vector<StreamEvent>& evs, const OJson& p);
void UsageEveryChunk(std::vector<StreamEvent>& evs, const OJson& p);
void UsageXGroq(std::vector<StreamEvent>& evs, const OJson& p);
void PaddingField(std::vector<StreamEvent>& evs, const OJson& p);

// The reasoning text as `field` carries it: a string, a reasoning_details
// array, or (field "content") a content array's thinking block.
OJson ReasoningValue(std::string_view field, const std::string& text);
// "<think>\nTEXT\n</think>\n\n" for the `text` parameter.
std::string ThinkPrefix(const OJson& p);

// Body rewrites.
void BodyContentFilter(BodyView& b, const OJson& p, bool stream_requested);
BodyRewrite BodyReasoning(std::string field);
void BodyThinkTags(BodyView& b, const OJson& p, bool stream_requested);
void BodyContentArray(BodyView& b, const OJson& p, bool stream_requested);
void BodyErrorInStream(BodyView& b, const OJson& p, bool stream_requested);
void BodyErrorWith200(BodyView& b, const OJson& p, bool stream_requested);
void BodyFlatError(BodyView& b, const OJson& p, bool stream_requested);
void BodyErrorArray(BodyView& b, const OJson& p, bool stream_requested);

// A deviation replay can produce: its documentation, parameters and rewrites.
struct Rewrite {
  RewritableDeviation doc;
  OJson defaults;        // parameter names and default values
  StreamRewrite stream;  // may be empty
  BodyRewrite body;      // may be empty
};
// Appends the Responses API's rewrites (DIA-RESP-*, responses_rewrites.cpp).
void AddResponsesRows(std::vector<Rewrite>& t);
// Appends Anthropic Messages' rewrites (DIA-MSG-*, messages_rewrites.cpp).
void AddMessagesRows(std::vector<Rewrite>& t);
// Appends the Gemini API's rewrites (DIA-GEM-*, gemini_rewrites.cpp).
void AddGeminiRows(std::vector<Rewrite>& t);
// Every rewrite, in the order `mockllm dialects --help` lists them.
const std::vector<Rewrite>& Rewrites();
// The rewrite of deviation `id`, or null.
const Rewrite* FindRewrite(std::string_view id);

}  // namespace llmconform::mockllm::dialect
