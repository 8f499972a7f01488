// `mockllm import`'s readers: the input as a vcrpy YAML cassette, as a HAR
// 1.2 document, and as whatever ParseRecording takes it for. An imported
// trace must survive the trace writer and reader unchanged, as `mockllm
// import` writes it and replay reads it back.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "mockllm/import.h"
#include "mockllm/trace.h"

namespace {

void RoundTrip(
    const std::expected<llmconform::mockllm::ImportResult, llmconform::mockllm::Error>& imported) {
  if (!imported) return;
  const std::string written = llmconform::mockllm::WriteTrace(imported->trace);
  auto read = llmconform::mockllm::ParseTrace(written, "imported.trace.jsonl");
  if (!read) std::abort();  // import wrote a trace its own reader refuses
  if (llmconform::mockllm::WriteTrace(*read) != written) std::abort();
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view text = llmconform::fuzz::Text(data, size);
  RoundTrip(llmconform::mockllm::ParseCassette(text, "fuzz.yaml"));
  RoundTrip(llmconform::mockllm::ParseHar(text, "fuzz.har"));
  (void)llmconform::mockllm::ParseRecording(
      text, "fuzz",
      {.provider = "", .trace_id = "", .paths = llmconform::mockllm::ImportPaths::kAll});
  return 0;
}
