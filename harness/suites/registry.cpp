#include "harness/suites/registry.h"

#include <array>

#include "harness/suites/action_suite.h"
#include "harness/suites/multiturn_suite.h"
#include "harness/suites/skill_suite.h"

namespace llmconform::harness {

std::span<const SuiteKind> Suites() {
  static constexpr std::array kSuites = {
      SuiteKind{"action", &MakeActionSuite},
      SuiteKind{"multiturn", &MakeMultiturnSuite},
      SuiteKind{"skill", &MakeSkillSuite},
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
