// The Gemini API surface (wire/gemini.h): a raw SSE body accumulated whole
// and in reads split at offsets taken from its first bytes must give the
// same canonical result; the same bytes read as a response body (an object
// or an array of them) must not crash.
#include <cstdlib>

#include "base/json_read.h"
#include "fuzz/fuzz_input.h"
#include "protocols/wire/gemini.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const std::string_view text = fuzz::Text(data, size);
  const wire::CanonicalResult whole = wire::AccumulateSurfaceStream(wire::Surface::kGemini, text);
  const auto cuts = fuzz::Splits(text);
  if (!(wire::AccumulateSurfaceStreamSplit(wire::Surface::kGemini, text, cuts) == whole))
    std::abort();  // chunking changed the result
  const Json body = ReadJsonOrDiscarded(text);
  if (!body.is_discarded()) (void)wire::ReadGeminiBody(body);
  return 0;
}
