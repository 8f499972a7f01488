#include "reports/reporter.h"

#include <utility>

namespace llmconform::reports {

void MultiReporter::Add(std::unique_ptr<Reporter> reporter) {
  if (reporter) reporters_.push_back(std::move(reporter));
}

void MultiReporter::OnRunStart(const RunStartInfo& info) {
  for (auto& r : reporters_) r->OnRunStart(info);
}

void MultiReporter::OnScenarioStart(const ScenarioInfo& scenario) {
  for (auto& r : reporters_) r->OnScenarioStart(scenario);
}

void MultiReporter::OnCheckResult(const ScenarioInfo& scenario, const CheckResult& result) {
  for (auto& r : reporters_) r->OnCheckResult(scenario, result);
}

void MultiReporter::OnScenarioEnd(const ScenarioResult& result) {
  for (auto& r : reporters_) r->OnScenarioEnd(result);
}

void MultiReporter::OnRunEnd(const RunResult& run) {
  for (auto& r : reporters_) r->OnRunEnd(run);
}

void CumulativeReporter::OnRunEnd(const RunResult& run) {
  out_ << render_(run);
  out_.flush();
}

void ReplayRun(const RunResult& run, const std::string& spec_dir, Reporter& reporter) {
  reporter.OnRunStart(
      {run.tool_version, run.started_at, static_cast<int>(run.scenarios.size()), spec_dir});
  for (const ScenarioResult& s : run.scenarios) {
    reporter.OnScenarioStart(s.info);
    for (const CheckResult& c : s.checks) reporter.OnCheckResult(s.info, c);
    reporter.OnScenarioEnd(s);
  }
  reporter.OnRunEnd(run);
}

}  // namespace llmconform::reports
