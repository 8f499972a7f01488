// Which recorded request paths answer a request's path (docs/mockllm.md,
// "Vertex AI").
#pragma once

#include <string>
#include <string_view>

#include "protocols/wire/gemini.h"

namespace llmconform::mockllm {

// True when a request on `path` asks for what was recorded on `recorded`:
// the same path, or under sdk matching (`sdk`) two Gemini paths of the same
// call through different backends or versions (wire::GeminiCallOfPath: the
// Developer API's recording answers Vertex AI's path of the same model and
// method, and the other way round). The query is not read.
inline bool SamePath(std::string_view recorded, std::string_view path, bool sdk) {
  if (recorded == path) return true;
  if (!sdk) return false;
  const std::string call = wire::GeminiCallOfPath(path);
  return !call.empty() && call == wire::GeminiCallOfPath(recorded);
}

}  // namespace llmconform::mockllm
