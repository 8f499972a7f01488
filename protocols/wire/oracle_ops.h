// Oracle operations of the wire layer:
//   sse.parse {"stream","splits"?} → {"events":[{"event","data","id"}],"retry"?}
//   wire.accumulate {"stream"} → {"message","finish_reason","usage","findings"}
//   responses.accumulate {"stream"} | {"body"} → the canonical result of
//     protocols/wire/surface.h (items, text, reasoning, status, usage, error,
//     findings located by event number and JSON pointer)
//   gemini.accumulate {"stream"} | {"body"} → the same for a Gemini API
//     stream (streamGenerateContent?alt=sse) or body (generateContent)
//   messages.accumulate {"stream"} | {"body"} → the same for Anthropic's
//     Messages API
#pragma once

#include <vector>

#include "protocols/wire/oracle_op.h"

namespace llmconform::wire {
std::vector<OracleOp> OracleOps();
}
