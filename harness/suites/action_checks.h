// The checks of the action suite, one per rule of specs/action/rules.json, in
// one table (harness/suites/rule_table.h). They read the outputs (and, for
// ACT-15, the request in mockllm's journal) and compare them with the
// scenario's `expect` (harness/suites/action_suite.h describes both).
#pragma once

#include <span>

#include "harness/suite.h"
#include "harness/suites/rule_table.h"

namespace llmconform::harness::action_suite {

struct Context {
  const Scenario& scenario;
  const Observation& obs;
};

std::span<const RuleCheck<Context>> Rules();

}  // namespace llmconform::harness::action_suite
