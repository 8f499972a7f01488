// Streaming machine output (events.jsonl): one compact JSON object a line per
// event, written and flushed as the event arrives, so a consumer can follow a
// run while it happens. Keys are sorted; "event" names the callback:
//
//   {"event":"run_start","scenario_count","spec_dir","started_at","tool_version"}
//   {"event":"scenario_start", …ScenarioInfoToJson}
//   {"event":"check","protocol","scenario", …CheckToJson}
//   {"event":"scenario_end","protocol","name","outcome","duration_ms","checks":{totals}}
//   {"event":"run_end","duration_ms","exit_code","totals":{"scenarios","checks"}}
#pragma once

#include <ostream>

#include "reports/reporter.h"

namespace llmconform::reports {

class JsonLinesReporter final : public Reporter {
 public:
  explicit JsonLinesReporter(std::ostream& out) : out_(out) {}

  void OnRunStart(const RunStartInfo& info) override;
  void OnScenarioStart(const ScenarioInfo& scenario) override;
  void OnCheckResult(const ScenarioInfo& scenario, const CheckResult& result) override;
  void OnScenarioEnd(const ScenarioResult& result) override;
  void OnRunEnd(const RunResult& run) override;

 private:
  std::ostream& out_;
};

}  // namespace llmconform::reports
