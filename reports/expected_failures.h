// Expected-failure baselines (`run` / `check` --expected-failures FILE): known
// failures that do not fail the build, so that a client can adopt the suite
// before it conforms, and the baseline shrinks as the client is fixed.
//
// The file is YAML or JSON: a list of entries, or an object whose
// "expected_failures" is that list. Each entry is an object
//   {scenario: "PROTOCOL/NAME[@DIALECT][:RULE-ID]", reason: "why"}
// - "PROTOCOL/NAME": every failing check of the scenario, in any dialect;
// - "…@DIALECT": only its run in that dialect (run --dialects);
// - "…:RULE-ID": only the failing checks of that rule.
// `reason` is required (a baseline says why). Applying it to a result:
// - each Fail check an entry covers becomes Skip, its `expected_failure` the
//   reason, its message "expected failure (REASON): MESSAGE";
// - an entry that covers a scenario in the run, none of whose covered checks
//   failed or erred, is stale: the scenario gets a Fail check of the rule
//   kStaleBaselineRule ("stale baseline: … now passes: remove it", naming the
//   entry's file and line), so the build fails until the entry is removed.
// Error checks are never expected: the harness broke, the client was not judged.
#pragma once

#include <expected>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "reports/result.h"

namespace llmconform::reports {

inline constexpr std::string_view kStaleBaselineRule = "expected-failures";

struct ExpectedFailure {
  std::string scenario;  // "protocol/name"
  std::string dialect;   // "" = any
  std::string rule;      // "" = every failing rule
  std::string reason;
  std::string where;             // "FILE:LINE:COL" of the entry
  std::string Spelling() const;  // as written: scenario[@dialect][:rule]
  friend bool operator==(const ExpectedFailure&, const ExpectedFailure&) = default;
};

struct ExpectedFailures {
  std::vector<ExpectedFailure> entries;
};

// Reads a baseline; `name` labels errors, which are located
// ("NAME:LINE:COL: what"). Bounded: at most 100 000 entries, 4 KiB a field.
std::expected<ExpectedFailures, Error> ParseExpectedFailures(std::string_view name,
                                                             std::string_view text);

// An error naming the first entry whose scenario is not among `scenarios`
// ("protocol/name") or whose rule is in no entry of `rules` (a typo would
// otherwise be an entry that can never be stale).
std::expected<void, Error> CheckExpectedFailuresKnown(const ExpectedFailures& baseline,
                                                      const std::vector<std::string>& scenarios,
                                                      const std::vector<RuleInfo>& rules);

// Applies the baseline to one scenario's result (see the file comment).
void ApplyExpectedFailures(const ExpectedFailures& baseline, ScenarioResult& result);

}  // namespace llmconform::reports
