// WHATWG SSE parsing: the whole stream at once and the same stream in pieces
// must give the same events.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "protocols/wire/sse.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const std::string_view text = fuzz::Text(data, size);
  const wire::SseParseResult whole = wire::ParseSse(text);
  const wire::SseParseResult pieces = wire::ParseSse(text, fuzz::Splits(text));
  if (whole.events != pieces.events) std::abort();  // chunking changed the events
  return 0;
}
