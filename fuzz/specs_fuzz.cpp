// Loading a rule catalogue and a scenario file (harness/scenario.h): the
// input is the catalogue before its first NUL and the scenario after it.
#include "fuzz/fuzz_input.h"
#include "harness/scenario.h"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace llmconform;
  const auto [rules_text, scenario_text] = fuzz::SplitAtNul(fuzz::Text(data, size));
  auto rules = harness::ParseRuleCatalog("specs/p/rules.json", rules_text, "p");
  const harness::RuleCatalog catalog = rules ? *rules : harness::RuleCatalog{};
  (void)harness::ParseScenario("specs/p/s.json", scenario_text, "p", catalog);
  (void)harness::ParseScenario("specs/p/s.json", rules_text, "p", catalog);
  return 0;
}
