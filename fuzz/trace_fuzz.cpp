// Reading a trace (llmconform-trace/1 JSON Lines, with the `events`
// shorthand for streams), then linting what was read.
#include "fuzz/fuzz_input.h"
#include "mockllm/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  auto trace =
      llmconform::mockllm::ParseTrace(llmconform::fuzz::Text(data, size), "fuzz.trace.jsonl");
  if (trace) {
    for (const auto& exchange : trace->exchanges) (void)exchange.response.BodyBytes();
  }
  return 0;
}
