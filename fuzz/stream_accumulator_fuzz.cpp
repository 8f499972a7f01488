// Accumulating a raw chat-completions SSE body (wire/stream_accumulator.h).
#include "fuzz/fuzz_input.h"
#include "protocols/wire/stream_accumulator.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  (void)llmconform::wire::AccumulateStream(llmconform::fuzz::Text(data, size));
  return 0;
}
