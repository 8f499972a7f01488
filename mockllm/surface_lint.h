// The contract rules of an exchange's API surface (protocols/wire/surface.h),
// for `mockllm lint`: a Responses API, Gemini or Anthropic Messages
// exchange's stream or body (a Messages model call: not
// `…/messages/count_tokens`) is read as a client reads it (a Gemini error
// body too), and every RESP-*, GEM-* or MSG-* rule of specs/wire/rules.json
// it breaks
// is a warning placed at the JSON pointer of the trace line that holds the
// break (`/response/chunks/N` for the chunk its event ends in,
// `/response/body/...` for a body). Warnings never fail lint: a recording is
// evidence of what a server sent, not a fixture to correct.
#pragma once

#include <string>
#include <vector>

#include "mockllm/trace.h"

namespace llmconform::mockllm {

struct SurfaceWarning {
  std::string pointer;  // in the exchange's line
  std::string message;  // "RESP-SEQUENCE: event 3 /sequence_number: …"
};

// The warnings of `x`; none for exchanges whose path is no surface with
// contract rules (Chat Completions deviations are dialects: `llmconform
// dialect` names them).
std::vector<SurfaceWarning> SurfaceWarnings(const Exchange& x);

}  // namespace llmconform::mockllm
