// Reading a trace (llmconform-trace/1 JSON Lines, with the `events`
// shorthand for streams), then what replay and lint do with it: replay plans
// every exchange with its fault in its surface's shape and reads the
// Responses ids a previous_response_id chain names (mockllm/response_chain.h). A trace that
// reads must write back to text that reads to the same trace
// (Write(Read(Write(t))) == Write(t), mockllm/trace.h).
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "mockllm/lint.h"
#include "mockllm/replay_book.h"
#include "mockllm/trace.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = llmconform::fuzz::Text(data, size);
  auto trace = llmconform::mockllm::ParseTrace(text, "fuzz.trace.jsonl");
  (void)llmconform::mockllm::LintTrace(text, "fuzz.trace.jsonl");
  if (!trace) return 0;
  for (const auto& exchange : trace->exchanges) (void)exchange.response.BodyBytes();
  if (auto book = llmconform::mockllm::ReplayBook::Build({*trace}, {})) {
    for (const auto& exchange : trace->exchanges) {
      (void)(*book)->UnknownPreviousResponse(
          exchange.request.path,
          exchange.request.body ? llmconform::Json(*exchange.request.body) : llmconform::Json());
    }
  }
  const std::string written = llmconform::mockllm::WriteTrace(*trace);
  auto again = llmconform::mockllm::ParseTrace(written, "written.trace.jsonl");
  if (!again) std::abort();  // the writer wrote what the reader refuses
  if (llmconform::mockllm::WriteTrace(*again) != written) std::abort();
  return 0;
}
