// The Gemini API surface (wire/gemini.h): a raw SSE body accumulated whole
// and in reads split at offsets taken from its first bytes must give the
// same canonical result; the same bytes read as a response body (an object
// or an array of them) must not crash.
#include "fuzz/surface_fuzz.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  return fuzz::FuzzSurface(wire::Surface::kGemini, fuzz::Text(data, size));
}
