#include "harness/suites/registry.h"

#include <array>

#include "harness/suites/action_checks.h"
#include "harness/suites/action_suite.h"
#include "harness/suites/client_checks.h"
#include "harness/suites/client_suite.h"
#include "harness/suites/gymbro_checks.h"
#include "harness/suites/gymbro_suite.h"
#include "harness/suites/multiturn_checks.h"
#include "harness/suites/multiturn_suite.h"
#include "harness/suites/rule_table.h"
#include "harness/suites/skill_checks.h"
#include "harness/suites/skill_suite.h"
#include "harness/suites/thinkingml_suite.h"
#include "harness/suites/toolcalls_checks.h"
#include "harness/suites/toolcalls_suite.h"

namespace llmconform::harness {

std::span<const SuiteKind> Suites() {
  static constexpr std::array kSuites = {
      SuiteKind{"action", &MakeActionSuite, [] { return RuleIdsOf(action_suite::Rules()); }},
      SuiteKind{"client", &MakeClientSuite, [] { return RuleIdsOf(client_suite::Rules()); }},
      SuiteKind{"gymbro", &MakeGymbroSuite, [] { return RuleIdsOf(gymbro_suite::GymbroRules()); }},
      SuiteKind{"multiturn", &MakeMultiturnSuite,
                [] { return RuleIdsOf(multiturn_suite::Rules()); }},
      SuiteKind{"skill", &MakeSkillSuite, [] { return RuleIdsOf(skill_suite::Rules()); }},
      SuiteKind{"thinkingml", &MakeThinkingmlSuite,
                [] { return RuleIdsOf(gymbro_suite::ThinkingmlRules()); }},
      SuiteKind{"toolcalls", &MakeToolcallsSuite,
                [] { return RuleIdsOf(toolcalls_suite::Rules()); }},
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
