// The ThinkingML validator: Validate and the verdict-only CheckReply must
// agree on the findings; the escape must not fail on any input.
#include <cstdlib>

#include "fuzz/fuzz_input.h"
#include "protocols/thinkingml/thinkingml.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const std::string_view reply = fuzz::Text(data, size);
  const thinkingml::Validation v = thinkingml::Validate(reply);
  if (v.findings != thinkingml::CheckReply(reply)) std::abort();
  (void)thinkingml::EscapeThinkingFinalLiterals(reply);
  return 0;
}
