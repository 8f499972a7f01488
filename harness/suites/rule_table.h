// Rule dispatch of the protocol suites. Each suite has one table from rule ID
// to the function that checks the rule (in `<protocol>_checks.cpp`; skill:
// skill_request_checks.cpp and skill_reply_checks.cpp; toolcalls: also
// toolcalls_tool_checks.cpp), so a rule ID in a report leads to its check in
// one step: `llmconform list --rules` prints each rule's check at file:line
// (harness/rule_index.h, generated from these tables). suite_rules_test.cpp
// holds every table to its catalogue, specs/<protocol>/rules.json: one entry
// per rule.
#pragma once

#include <initializer_list>
#include <nlohmann/json.hpp>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/format.h"
#include "reports/result.h"

namespace llmconform::harness {

// One entry: the rule and its check. `Context` is what the suite's checks
// read (the scenario, the observation and what the suite made of them).
template <typename Context>
struct RuleCheck {
  std::string_view rule;
  reports::CheckResult (*check)(const std::string& rule, const Context& c);
};

// The rule's check applied to `c`, or an Error result when `table` has no
// entry for the rule. Checks read what a client sent or wrote with typed
// reads (base/json_fields.h, "Lenient reading") and fail on a wrong shape;
// should one still meet a value it reads as another type, that is the
// client's data failing the rule (a Fail naming the rule and the value's
// type), not the harness failing (exit 3).
template <typename Context>
reports::CheckResult RunRuleCheck(std::span<const RuleCheck<Context>> table,
                                  const std::string& rule, const Context& c) {
  for (const auto& entry : table) {
    if (entry.rule != rule) continue;
    try {
      return entry.check(rule, c);
    } catch (const nlohmann::json::type_error& e) {
      return reports::CheckResult::Fail(
          rule,
          Format("what the client sent or wrote has a shape rule {} cannot read: {}", rule,
                 e.what()),
          reports::Evidence{.expected = "the shape the rule reads",
                            .actual = e.what(),
                            .where = "the journal and the client's outputs"});
    }
  }
  return reports::CheckResult::Error(rule, Format("no check is implemented for rule {}", rule));
}

// One table of the parts of a suite's table kept beside their checks, in order.
template <typename Context>
std::vector<RuleCheck<Context>> JoinRuleTables(
    std::initializer_list<std::span<const RuleCheck<Context>>> parts) {
  std::vector<RuleCheck<Context>> all;
  for (auto part : parts) all.insert(all.end(), part.begin(), part.end());
  return all;
}

// The rule IDs of `table`, in table order.
template <typename Entry>
std::vector<std::string_view> RuleIdsOf(std::span<const Entry> table) {
  std::vector<std::string_view> ids;
  for (const auto& entry : table) ids.push_back(entry.rule);
  return ids;
}

}  // namespace llmconform::harness
