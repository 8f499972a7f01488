// The Responses API surface (wire/responses.h): a raw SSE body accumulated
// whole and in reads split at offsets taken from its first bytes must give
// the same canonical result; the same bytes read as a response body must not
// crash.
#include "fuzz/surface_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  return fuzz::FuzzSurface(wire::Surface::kResponses, fuzz::Text(data, size));
}
