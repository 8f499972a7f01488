// The checks of the toolcalls suite, one per rule of
// specs/toolcalls/rules.json, in one table (harness/suites/rule_table.h).
// They judge the requests that reached the wire (toolcalls_journal.h) and
// what the run left behind (the outputs, harness/suites/toolcalls_suite.h).
#pragma once

#include <span>
#include <vector>

#include "harness/suite.h"
#include "harness/suites/rule_table.h"
#include "harness/suites/toolcalls_journal.h"

namespace llmconform::harness::toolcalls_suite {

struct Context {
  const Scenario& scenario;
  const Observation& obs;
  const std::vector<SentRequest>& requests;  // never empty: no request fails every rule first
};

// The whole table, and its two parts: the rules on the run and its messages
// (toolcalls_checks.cpp), the rules on the tools (toolcalls_tool_checks.cpp).
std::span<const RuleCheck<Context>> Rules();
std::span<const RuleCheck<Context>> RunRules();
std::span<const RuleCheck<Context>> ToolRules();

}  // namespace llmconform::harness::toolcalls_suite
