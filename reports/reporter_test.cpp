#include "reports/reporter.h"

#include <gmock/gmock.h>
#include <gtest/gtest.h>

namespace llmconform::reports {
namespace {

// Writes one line a callback into a shared log, tagged with its own name.
class RecordingReporter final : public Reporter {
 public:
  RecordingReporter(std::string tag, std::vector<std::string>& log)
      : tag_(std::move(tag)), log_(log) {}
  void OnRunStart(const RunStartInfo& i) override {
    Log("run_start " + std::to_string(i.scenario_count) + " " + i.spec_dir);
  }
  void OnScenarioStart(const ScenarioInfo& s) override { Log("scenario_start " + s.Id()); }
  void OnCheckResult(const ScenarioInfo& s, const CheckResult& c) override {
    Log("check " + s.Id() + " " + c.rule + " " + std::string(OutcomeName(c.outcome)));
  }
  void OnScenarioEnd(const ScenarioResult& r) override {
    Log("scenario_end " + r.info.Id() + " " + std::string(OutcomeName(r.Overall())));
  }
  void OnRunEnd(const RunResult& r) override {
    Log("run_end " + std::to_string(r.scenarios.size()));
  }

 private:
  void Log(const std::string& line) { log_.push_back(tag_ + ": " + line); }
  std::string tag_;
  std::vector<std::string>& log_;
};

RunResult TwoScenarios() {
  RunResult run;
  run.scenarios = {{{"p", "a", "", "", "", "", {}},
                    {CheckResult::Pass("r1", ""), CheckResult::Fail("r2", "", {})},
                    1},
                   {{"p", "b", "", "", "", "", {}}, {}, 2}};
  return run;
}

TEST(ReplayRun, FiresEveryCallbackInOrder) {
  std::vector<std::string> log;
  RecordingReporter r("r", log);
  ReplayRun(TwoScenarios(), "specs", r);
  EXPECT_THAT(log, ::testing::ElementsAre("r: run_start 2 specs", "r: scenario_start p/a",
                                          "r: check p/a r1 pass", "r: check p/a r2 fail",
                                          "r: scenario_end p/a fail", "r: scenario_start p/b",
                                          "r: scenario_end p/b skip", "r: run_end 2"));
}

TEST(MultiReporter, ForwardsEachEventToEveryReporterInOrderAdded) {
  std::vector<std::string> log;
  MultiReporter multi;
  multi.Add(std::make_unique<RecordingReporter>("first", log));
  multi.Add(nullptr);  // ignored
  multi.Add(std::make_unique<RecordingReporter>("second", log));
  EXPECT_EQ(multi.size(), 2u);
  RunResult run = TwoScenarios();
  run.scenarios.pop_back();
  ReplayRun(run, "specs", multi);
  EXPECT_THAT(
      log, ::testing::ElementsAre("first: run_start 1 specs", "second: run_start 1 specs",
                                  "first: scenario_start p/a", "second: scenario_start p/a",
                                  "first: check p/a r1 pass", "second: check p/a r1 pass",
                                  "first: check p/a r2 fail", "second: check p/a r2 fail",
                                  "first: scenario_end p/a fail", "second: scenario_end p/a fail",
                                  "first: run_end 1", "second: run_end 1"));
}

}  // namespace
}  // namespace llmconform::reports
