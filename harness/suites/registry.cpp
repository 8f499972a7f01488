#include "harness/suites/registry.h"

#include <array>

#include "harness/suites/action_suite.h"
#include "harness/suites/gymbro_suite.h"
#include "harness/suites/multiturn_suite.h"
#include "harness/suites/skill_suite.h"
#include "harness/suites/thinkingml_suite.h"
#include "harness/suites/toolcalls_suite.h"

namespace llmconform::harness {

std::span<const SuiteKind> Suites() {
  static constexpr std::array kSuites = {
      SuiteKind{"action", &MakeActionSuite},         SuiteKind{"gymbro", &MakeGymbroSuite},
      SuiteKind{"multiturn", &MakeMultiturnSuite},   SuiteKind{"skill", &MakeSkillSuite},
      SuiteKind{"thinkingml", &MakeThinkingmlSuite}, SuiteKind{"toolcalls", &MakeToolcallsSuite},
  };
  return kSuites;
}

const SuiteKind* FindSuite(std::string_view protocol) {
  for (const auto& s : Suites()) {
    if (s.protocol == protocol) return &s;
  }
  return nullptr;
}

}  // namespace llmconform::harness
