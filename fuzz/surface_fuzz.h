// The shared body of the API-surface fuzzers (responses_fuzz, messages_fuzz,
// gemini_fuzz):
// a raw SSE body accumulated whole and in reads split at offsets taken from
// its first bytes must give the same canonical result (else abort); the same
// bytes read as a response body, and the surface's dialect detection of both
// (protocols/wire/dialect.h), must not crash.
#pragma once

#include <cstdlib>
#include <string_view>

#include "base/json_read.h"
#include "fuzz/fuzz_input.h"
#include "protocols/wire/dialect.h"
#include "protocols/wire/surface.h"

namespace llmconform::fuzz {

inline int FuzzSurface(wire::Surface surface, std::string_view text) {
  const wire::CanonicalResult whole = wire::AccumulateSurfaceStream(surface, text);
  if (!(wire::AccumulateSurfaceStreamSplit(surface, text, Splits(text)) == whole))
    std::abort();  // chunking changed the result
  const Json body = ReadJsonOrDiscarded(text);
  if (!body.is_discarded()) (void)wire::ReadSurfaceBody(surface, body);
  (void)wire::DetectStreamDialect(surface, text);
  (void)wire::DetectBodyDialect(surface, text, 200);
  return 0;
}

}  // namespace llmconform::fuzz
