// The client profile's reference reading of one reply of any API surface: what
// a correct client reads from the bytes mockllm sent (after the dialect and
// the fault), in the shape a client under test writes to LLMCONFORM_OUTPUT
// (docs/gate.md, "Client profile"):
//   {"text", "reasoning", "tool_calls": [{"id","name","arguments"}], "usage",
//    "finish", "error": {"status","kind","message"} | null}
// It is the wire layer's reading (protocols/wire: StreamAccumulator for a
// stream, ResponseFromJson for a body, ErrorBodyFromJson for every error
// shape of docs/protocols.md "Provider dialects"), with inline and block
// reasoning taken off the text (docs/protocols.md "Inline reasoning").
// The other surfaces are read by their surface reader (protocols/wire/surface.h:
// AccumulateSurfaceStream, ReadSurfaceBody) into the same shape: text and
// reasoning as CanonicalResult::Text and ::Reasoning, tool_calls from its
// function calls ({call_id, name, arguments}), finish its status, usage as
// {prompt_tokens, completion_tokens, total_tokens} from the surface's own
// counts (input/output_tokens; promptTokenCount/candidatesTokenCount/
// totalTokenCount), a count the reply does not give null.
#pragma once

#include <nlohmann/json.hpp>
#include <string>
#include <string_view>

#include "protocols/wire/surface.h"

namespace llmconform::harness::client_suite {

// One HTTP answer as it reached the client.
struct Reply {
  int status = 200;
  std::string_view content_type;
  std::string_view body;
  bool stream = false;  // a chunked SSE body
  // The connection closed before the response ended (a cut fault, or a
  // transport error after the headers).
  bool cut = false;
  wire::Surface surface = wire::Surface::kChat;
};

// error.kind is "http" (a status of 400 or more), "in_body" (an error body
// in a 200), "in_stream" (an error event in a 200 stream), "cut" (the stream
// broke off before it finished: on the other surfaces, before their terminal
// event or finishReason) or "malformed" (a 200 that is neither a
// completion nor an error). On an error, text/reasoning/tool_calls hold
// what arrived before it. Never throws.
nlohmann::json ReadReply(const Reply& reply);

// The reading of a journal entry's "replied" object (harness/replies_sent.h),
// of the surface it names (chat when none); null when it has none.
nlohmann::json ReadReplied(const nlohmann::json& replied);

// Keep-alives in an SSE body: comment lines (": keep-alive") and Anthropic's
// `event: ping` lines.
std::size_t CommentLines(std::string_view body);

}  // namespace llmconform::harness::client_suite
