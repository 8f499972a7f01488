// WHATWG SSE parsing: the whole stream at once and the same stream in pieces
// must give the same events, and the block splitter (sse_blocks.h) must tile
// the stream and find exactly the events the parser dispatches.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "protocols/wire/sse.h"
#include "protocols/wire/sse_blocks.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const std::string_view text = fuzz::Text(data, size);
  const wire::SseParseResult whole = wire::ParseSse(text);
  const wire::SseParseResult pieces = wire::ParseSse(text, fuzz::Splits(text));
  if (whole.events != pieces.events) std::abort();  // chunking changed the events
  std::size_t at = 0;
  std::size_t events = 0;
  for (const wire::SseBlock& b : wire::SplitSseBlocks(text)) {
    if (b.begin != at || b.end <= b.begin) std::abort();  // the blocks do not tile the stream
    at = b.end;
    if (b.IsEvent()) ++events;
  }
  if (at != text.size()) std::abort();
  if (events != whole.events.size()) std::abort();  // a block boundary the parser disagrees with
  return 0;
}
