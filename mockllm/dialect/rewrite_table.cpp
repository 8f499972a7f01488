#include "mockllm/dialect/rewrites.h"

namespace llmconform::mockllm::dialect {
namespace {

const OJson& DefaultFilterResults() {
  static const OJson r = {{"hate", {{"filtered", false}, {"severity", "safe"}}},
                          {"self_harm", {{"filtered", false}, {"severity", "safe"}}},
                          {"sexual", {{"filtered", false}, {"severity", "safe"}}},
                          {"violence", {{"filtered", false}, {"severity", "safe"}}}};
  return r;
}

constexpr std::string_view kReasoningText = "The user asked a question. I will answer it directly.";

// Keep-alives, Azure's first chunk and filter results, tool-call shapes.
void AddFramingAndToolCallRows(std::vector<Rewrite>& t) {
  t.push_back(
      {{"DIA-KEEPALIVE-COMMENT", "COUNT SSE comment lines ': COMMENT' before the first event",
        "comment (\"keep-alive\"), count (1, 1..100)"},
       {{"comment", "keep-alive"}, {"count", 1}},
       KeepaliveComments,
       nullptr});
  t.push_back({{"DIA-EMPTY-FIRST-CHUNK",
                "a first chunk with choices: [], empty id, object and model, created 0",
                "prompt_filter_results (an array)"},
               {{"prompt_filter_results",
                 OJson::array(
                     {{{"prompt_index", 0}, {"content_filter_results", DefaultFilterResults()}}})}},
               EmptyFirstChunk,
               nullptr});
  t.push_back(
      {{"DIA-CONTENT-FILTER-RESULTS", "content_filter_results on every choice (streamed and not)",
        "content_filter_results (an object)"},
       {{"content_filter_results", DefaultFilterResults()}},
       ContentFilterResults,
       BodyContentFilter});
  t.push_back({{"DIA-TOOLCALL-WHOLE-DELTA", "each streamed tool call whole in its first delta", ""},
               OJson::object(),
               WholeToolCalls,
               nullptr});
  t.push_back(
      {{"DIA-TOOLCALL-NO-INDEX", "each streamed tool call whole in one delta without index", ""},
       OJson::object(),
       ToolCallsWithoutIndex,
       nullptr});
  t.push_back({{"DIA-TOOLCALL-ID-REPEATED",
                "the tool-call id repeated on every later delta of its call", ""},
               OJson::object(),
               ToolCallIdRepeated,
               nullptr});
  t.push_back({{"DIA-TOOLCALL-NO-TYPE", "streamed tool-call deltas without type", ""},
               OJson::object(),
               ToolCallNoType,
               nullptr});
}

// Where the reasoning text goes.
void AddReasoningRows(std::vector<Rewrite>& t) {
  const OJson text = {{"text", kReasoningText}};
  t.push_back(
      {{"DIA-REASONING-CONTENT",
        "reasoning text in reasoning_content (a chunk before the reply, or the message)", "text"},
       text,
       StreamReasoning("reasoning_content"),
       BodyReasoning("reasoning_content")});
  t.push_back({{"DIA-REASONING-FIELD", "reasoning text in reasoning", "text"},
               text,
               StreamReasoning("reasoning"),
               BodyReasoning("reasoning")});
  t.push_back({{"DIA-REASONING-DETAILS",
                "reasoning as a reasoning_details array of one reasoning.text block", "text"},
               text,
               StreamReasoning("reasoning_details"),
               BodyReasoning("reasoning_details")});
  t.push_back({{"DIA-CONTENT-ARRAY",
                "reasoning as a content array's thinking block (a chunk before the reply; the "
                "message's content becomes [thinking, text])",
                "text"},
               text,
               StreamReasoning("content"),
               BodyContentArray});
  t.push_back({{"DIA-THINK-TAGS-IN-CONTENT",
                "reasoning inline at the start of content, between <think> tags", "text"},
               text,
               ThinkTags,
               BodyThinkTags});
}

// Roles, finish reasons, [DONE], usage and padding on chunks.
void AddChunkFieldRows(std::vector<Rewrite>& t) {
  t.push_back({{"DIA-ROLE-EVERY-CHUNK", "delta.role \"assistant\" on every delta", ""},
               OJson::object(),
               RoleEveryChunk,
               nullptr});
  t.push_back({{"DIA-FINISH-REASON-NOT-TOOL-CALLS",
                "a streamed finish_reason \"tool_calls\" becomes FINISH_REASON",
                "finish_reason (\"stop\")"},
               {{"finish_reason", "stop"}},
               FinishReasonNotToolCalls,
               nullptr});
  t.push_back({{"DIA-FINISH-REASON-REPEATED",
                "the first finish_reason chunk sent again with an empty delta", ""},
               OJson::object(),
               FinishReasonRepeated,
               nullptr});
  t.push_back({{"DIA-FINISH-REASON-OMITTED", "finish_reason: null left out of chunks", ""},
               OJson::object(),
               FinishReasonOmitted,
               nullptr});
  t.push_back({{"DIA-NO-DONE", "no data: [DONE] at the end of the stream", ""},
               OJson::object(),
               NoDone,
               nullptr});
  t.push_back(
      {{"DIA-USAGE-EVERY-CHUNK", "the stream's usage object on every chunk with choices", ""},
       OJson::object(),
       UsageEveryChunk,
       nullptr});
  t.push_back({{"DIA-USAGE-X-GROQ",
                "the stream's usage also in x_groq.usage on the finish_reason chunk", ""},
               OJson::object(),
               UsageXGroq,
               nullptr});
  t.push_back({{"DIA-PADDING-FIELD",
                "a padding field of 1..16 characters (derived from the chunk) on every chunk",
                "field (\"obfuscation\")"},
               {{"field", "obfuscation"}},
               PaddingField,
               nullptr});
}

// Error answers.
void AddErrorRows(std::vector<Rewrite>& t) {
  t.push_back({{"DIA-ERROR-IN-STREAM",
                "an error answer (status in STATUSES; [] = any) to a streamed request becomes a "
                "200 stream: "
                "data: {\"error\":…}, data: [DONE]",
                "statuses ([500, 502, 503])"},
               {{"statuses", OJson::array({500, 502, 503})}},
               nullptr,
               BodyErrorInStream});
  t.push_back({{"DIA-ERROR-WITH-200",
                "an error answer (status in STATUSES; [] = any) sent with HTTP 200, the status "
                "kept as error.code",
                "statuses ([] = any)"},
               {{"statuses", OJson::array()}},
               nullptr,
               BodyErrorWith200});
  t.push_back({{"DIA-FLAT-ERROR",
                "the error body without its wrapper: "
                "{\"object\":\"error\",\"message\",\"type\",\"param\",\"code\":STATUS} "
                "(style \"object\") or {\"detail\": MESSAGE} (style \"detail\")",
                "style (\"object\" | \"detail\")"},
               {{"style", "object"}},
               nullptr,
               BodyFlatError});
  t.push_back(
      {{"DIA-ERROR-ARRAY",
        "the error body as [{\"error\":{\"code\":STATUS,\"message\",\"status\":GOOGLE_STATUS}}]",
        ""},
       OJson::object(),
       nullptr,
       BodyErrorArray});
}

}  // namespace

const std::vector<Rewrite>& Rewrites() {
  static const std::vector<Rewrite> table = [] {
    std::vector<Rewrite> t;
    AddFramingAndToolCallRows(t);
    AddReasoningRows(t);
    AddChunkFieldRows(t);
    AddErrorRows(t);
    AddResponsesRows(t);
    AddMessagesRows(t);
    AddGeminiRows(t);
    return t;
  }();
  return table;
}

const Rewrite* FindRewrite(std::string_view id) {
  for (const Rewrite& r : Rewrites())
    if (r.doc.id == id) return &r;
  return nullptr;
}

}  // namespace llmconform::mockllm::dialect
