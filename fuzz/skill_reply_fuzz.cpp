// The skill reply parser and the terminal output cleaner. The input before
// its first NUL is the reply / raw output, the rest the last command.
#include "fuzz/fuzz_input.h"
#include "protocols/skill/clean_output.h"
#include "protocols/skill/response.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [text, last_command] = fuzz::SplitAtNul(fuzz::Text(data, size));
  (void)skill::ParseSkillResponse(text);
  (void)skill::CleanOutputForAI(text, last_command);
  return 0;
}
