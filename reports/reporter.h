// Reporters: event listeners that turn a run into output (Catch2's
// IEventListener, rapidcheck's reporters). The harness fires the callbacks in
// this order, exactly once each where marked:
//
//   OnRunStart                      once
//   for each scenario, in run order:
//     OnScenarioStart
//     OnCheckResult                 once per CheckResult of the scenario
//     OnScenarioEnd                 with the same checks, in the same order
//   OnRunEnd                        once, with every ScenarioResult
//
// Streaming reporters (console, JSON lines) write as events arrive;
// cumulative ones (JSON, JUnit, Markdown, HTML, matrix) write everything at
// OnRunEnd from the RunResult. A reporter writes only to the std::ostream it
// was handed and never opens files: the CLI owns them. The stream must outlive
// the reporter. Reporters are not thread-safe; the harness calls them from
// one thread.
#pragma once

#include <memory>
#include <ostream>
#include <string>
#include <vector>

#include "reports/result.h"

namespace llmconform::reports {

struct RunStartInfo {
  std::string tool_version;  // "0.1.0"
  std::string started_at;    // ISO 8601 UTC, as RunResult::started_at
  int scenario_count = 0;    // how many scenarios the run will start
  std::string spec_dir;      // where they were loaded from, as the user gave it
};

// The base does nothing in every callback; override what you need.
class Reporter {
 public:
  virtual ~Reporter() = default;
  virtual void OnRunStart(const RunStartInfo& /*info*/) {}
  virtual void OnScenarioStart(const ScenarioInfo& /*scenario*/) {}
  virtual void OnCheckResult(const ScenarioInfo& /*scenario*/, const CheckResult& /*result*/) {}
  virtual void OnScenarioEnd(const ScenarioResult& /*result*/) {}
  virtual void OnRunEnd(const RunResult& /*run*/) {}
};

// Forwards every event to each added reporter, in the order they were added.
class MultiReporter final : public Reporter {
 public:
  void Add(std::unique_ptr<Reporter> reporter);  // a null pointer is ignored
  std::size_t size() const { return reporters_.size(); }

  void OnRunStart(const RunStartInfo& info) override;
  void OnScenarioStart(const ScenarioInfo& scenario) override;
  void OnCheckResult(const ScenarioInfo& scenario, const CheckResult& result) override;
  void OnScenarioEnd(const ScenarioResult& result) override;
  void OnRunEnd(const RunResult& run) override;

 private:
  std::vector<std::unique_ptr<Reporter>> reporters_;
};

// A cumulative reporter: writes `render(run)` to the stream at OnRunEnd, then
// flushes it, and ignores the other events.
class CumulativeReporter : public Reporter {
 public:
  using Render = std::string (*)(const RunResult& run);
  CumulativeReporter(std::ostream& out, Render render) : out_(out), render_(render) {}
  void OnRunEnd(const RunResult& run) override;

 private:
  std::ostream& out_;
  Render render_;
};

// Fires the whole event sequence of a finished run into `reporter`, as the
// harness would have: to re-render a saved report, and for tests.
void ReplayRun(const RunResult& run, const std::string& spec_dir, Reporter& reporter);

}  // namespace llmconform::reports
