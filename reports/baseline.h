// What changed since a baseline run: the current RunResult against a saved
// canonical report (report.json of an earlier run, llmconform-report/1).
//
// Results are compared per (protocol, scenario, rule). Where a scenario holds
// several results for one rule, they count as one with the worst outcome
// (Error > Fail > Pass > Skip) and the message of the first result that has
// it. "Failing" means Fail or Error.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "reports/result.h"

namespace llmconform::reports {

enum class ChangeKind {
  kNewlyFailing,    // not failing before, failing now
  kNewlyPassing,    // failing before, Pass now
  kOutcomeChanged,  // any other change of outcome (pass → skip, fail → error, …)
  kAdded,           // in the current run only
  kRemoved,         // in the baseline only
};

std::string_view ChangeKindName(ChangeKind k);  // "newly failing", …, "removed"

struct BaselineChange {
  ChangeKind kind = ChangeKind::kOutcomeChanged;
  std::string protocol;
  std::string scenario;
  std::string rule;
  std::optional<Outcome> before;  // nullopt for kAdded
  std::optional<Outcome> after;   // nullopt for kRemoved
  std::string message;            // the current result's; the baseline's for kRemoved
  friend bool operator==(const BaselineChange&, const BaselineChange&) = default;
};

// The changes, grouped by kind in the order of ChangeKind, each group in run
// order (for kRemoved, the baseline's order). Empty when nothing changed.
std::vector<BaselineChange> DiffRuns(const RunResult& baseline, const RunResult& current);

// DiffRuns after reading the baseline with ReportFromJson; its errors come
// back prefixed: `baseline report: scenarios[0]: field "name": expected
// string, got number`.
std::expected<std::vector<BaselineChange>, Error> DiffAgainstBaseline(
    const nlohmann::json& baseline_report, const RunResult& current);

// True when the current run is worse than the baseline: something newly
// failing, or an added result that fails. A CLI gating on regressions only
// exits 1 on this.
bool HasRegressions(const std::vector<BaselineChange>& changes);

// "## Changes against the baseline", a count line, then a table a kind that
// occurs (scenario, rule, before, after, message); "No changes …" when empty.
std::string RenderBaselineDiffMarkdown(const std::vector<BaselineChange>& changes);

}  // namespace llmconform::reports
