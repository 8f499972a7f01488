#include "reports/json_lines_reporter.h"

#include <gtest/gtest.h>

#include <nlohmann/json.hpp>
#include <sstream>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(JsonLinesReporter, OneObjectPerEvent) {
  RunResult run;
  run.tool_version = "0.1.0";
  run.started_at = "2026-11-21T09:30:00Z";
  run.duration_ms = 5;
  run.scenarios = {
      {{"skill", "a", "d", "specs/skill/a.json", "", "openai", {"streaming"}},
       {CheckResult::Pass("r1", "ok"), CheckResult::Fail("r2", "bad", {"x", "y", "/z"})},
       2.5}};
  std::ostringstream out;
  JsonLinesReporter reporter(out);
  ReplayRun(run, "specs", reporter);
  EXPECT_EQ(
      out.str(),
      R"({"event":"run_start","scenario_count":1,"spec_dir":"specs","started_at":"2026-11-21T09:30:00Z","tool_version":"0.1.0"}
{"description":"d","event":"scenario_start","file":"specs/skill/a.json","name":"a","protocol":"skill","provider":"openai","tags":["streaming"],"trace":""}
{"event":"check","message":"ok","outcome":"pass","protocol":"skill","rule":"r1","scenario":"a"}
{"event":"check","evidence":{"actual":"y","expected":"x","where":"/z"},"message":"bad","outcome":"fail","protocol":"skill","rule":"r2","scenario":"a"}
{"checks":{"error":0,"fail":1,"pass":1,"skip":0,"total":2},"duration_ms":2.5,"event":"scenario_end","name":"a","outcome":"fail","protocol":"skill"}
{"duration_ms":5.0,"event":"run_end","exit_code":1,"totals":{"checks":{"error":0,"fail":1,"pass":1,"skip":0,"total":2},"scenarios":{"error":0,"fail":1,"pass":0,"skip":0,"total":1}}}
)");
}

TEST(JsonLinesReporter, EveryLineOfAWholeRunParses) {
  std::ostringstream out;
  JsonLinesReporter reporter(out);
  ReplayRun(testing::SampleRun(), "specs", reporter);
  std::istringstream lines(out.str());
  int count = 0;
  for (std::string line; std::getline(lines, line); ++count) {
    EXPECT_TRUE(nlohmann::json::accept(line)) << line;
  }
  EXPECT_EQ(count, 1 + 6 * 2 + 10 + 1);  // run start, start/end a scenario, a line a check, run end
}

}  // namespace
}  // namespace llmconform::reports
