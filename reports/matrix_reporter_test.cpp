#include "reports/matrix_reporter.h"

#include <gtest/gtest.h>

#include <sstream>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(MatrixReporter, MatchesGoldens) {
  std::ostringstream md, json;
  MatrixReporter reporter(&md, &json);
  ReplayRun(testing::SampleRun(), "specs", reporter);
  testing::ExpectMatchesGolden("matrix.md", md.str());
  testing::ExpectMatchesGolden("matrix.json", json.str());
}

TEST(MatrixReporter, WritesOnlyTheFormsItWasGiven) {
  std::ostringstream json;
  MatrixReporter reporter(nullptr, &json);
  ReplayRun(testing::SampleRun(), "specs", reporter);
  EXPECT_EQ(nlohmann::json::parse(json.str())["format"], "llmconform-matrix/1");
}

TEST(BuildMatrix, RowsAreProvidersColumnsAreProtocolsThenTags) {
  const Matrix m = BuildMatrix(testing::SampleRun());
  EXPECT_EQ(m.providers, (std::vector<std::string>{"deepseek", "ollama", "openai"}));
  EXPECT_EQ(m.features, (std::vector<std::string>{"multiturn", "skill", "#streaming"}));
  // openai × multiturn: one pass and one scenario skipped whole.
  EXPECT_EQ(m.cells[2][0], (MatrixCell{Outcome::kPass, 1, 1, 1}));
  EXPECT_EQ(m.cells[2][0]->Label(), "pass 1/1");
  EXPECT_EQ(m.cells[2][1]->Label(), "fail 0/1");
  EXPECT_EQ(m.cells[1][1]->Label(), "error 0/1");
  EXPECT_FALSE(m.cells[1][0].has_value());
  EXPECT_EQ(m.cells[0][2]->Label(), "pass 1/1");  // deepseek's streaming scenario
}

TEST(BuildMatrix, CellsCountScenariosAndNameTheWorst) {
  RunResult run;
  const auto scenario = [](std::string provider, std::vector<CheckResult> checks) {
    return ScenarioResult{
        {"skill", "s", "", "", "", std::move(provider), {}}, std::move(checks), 0};
  };
  run.scenarios = {
      scenario("a", {CheckResult::Pass("r", "")}), scenario("a", {CheckResult::Pass("r", "")}),
      scenario("a", {CheckResult::Pass("r", "")}), scenario("a", {CheckResult::Fail("r", "", {})}),
      scenario("b", {CheckResult::Skip("r", "")}), scenario("", {CheckResult::Pass("r", "")})};
  const Matrix m = BuildMatrix(run);
  EXPECT_EQ(m.providers, (std::vector<std::string>{"a", "b", "(none)"}));
  EXPECT_EQ(m.cells[0][0]->Label(), "fail 3/4");
  EXPECT_EQ(m.cells[1][0]->Label(), "skip");
  EXPECT_EQ(m.cells[2][0]->Label(), "pass 1/1");
  EXPECT_NE(RenderMatrixMarkdown(m).find("\n| (none) | \u2705 pass 1/1 |\n"), std::string::npos);
}

TEST(BuildMatrix, ADialectRunHasDialectRowsAndFeatureColumnsAndNamesWhatBrokeAFailure) {
  RunResult run;
  const auto scenario = [](std::string name, std::string dialect, std::vector<std::string> features,
                           CheckResult check, std::vector<std::string> deviations = {}) {
    ScenarioResult s;
    s.info.protocol = "toolcalls";
    s.info.name = std::move(name);
    s.info.provider = "openai";
    s.info.tags = std::move(features);
    s.info.dialect = std::move(dialect);
    s.info.deviations = std::move(deviations);
    s.checks = {std::move(check)};
    return s;
  };
  run.scenarios = {
      scenario("parallel", "openai", {"tool-call", "plain-text"}, CheckResult::Pass("r", "")),
      scenario("stream", "openai", {"no-done", "streamed-text", "zz-custom"},
               CheckResult::Pass("r", "")),
      scenario("parallel", "gemini", {"tool-call", "plain-text"}, CheckResult::Fail("r", "", {}),
               {"DIA-TOOLCALL-NO-INDEX"}),
      scenario("stream", "gemini", {"no-done", "streamed-text", "zz-custom"},
               CheckResult::Pass("r", "")),
      scenario("no-trace", "", {"plain-text"}, CheckResult::Fail("r", "", {}))};
  const Matrix m = BuildMatrix(run);
  EXPECT_EQ(m.providers, (std::vector<std::string>{"gemini", "openai"}));  // no "(none)"
  EXPECT_EQ(m.features, (std::vector<std::string>{"plain-text", "streamed-text", "tool-call",
                                                  "no-done", "zz-custom"}));
  EXPECT_EQ(m.cells[1][0]->Label(), "pass 1/1");  // the no-trace failure is not counted
  const MatrixCell& broken = *m.cells[0][2];
  EXPECT_EQ(broken.Label(), "fail 0/1");
  ASSERT_EQ(broken.failures.size(), 1u);
  EXPECT_EQ(broken.failures[0].scenario, "toolcalls/parallel@gemini");
  EXPECT_EQ(broken.failures[0].ReportLink(), "report.html#s3");
  EXPECT_EQ(broken.Deviations(), (std::vector<std::string>{"DIA-TOOLCALL-NO-INDEX"}));
  EXPECT_NE(RenderMatrixMarkdown(m).find("fail 0/1 (DIA-TOOLCALL-NO-INDEX)"), std::string::npos);
  const nlohmann::json j = MatrixToJson(m)["cells"]["gemini"]["tool-call"];
  EXPECT_EQ(j["failures"][0]["report"], "report.html#s3");
  EXPECT_EQ(j["deviations"], nlohmann::json::array({"DIA-TOOLCALL-NO-INDEX"}));
  EXPECT_FALSE(MatrixToJson(m)["cells"]["openai"]["tool-call"].contains("failures"));
}

TEST(BuildMatrix, EmptyRunHasNoRows) {
  const Matrix m = BuildMatrix(RunResult{});
  EXPECT_TRUE(m.providers.empty());
  EXPECT_EQ(RenderMatrixMarkdown(m), "# Provider × feature matrix\n\nNo scenarios ran.\n");
  EXPECT_EQ(MatrixToJson(m).dump(),
            R"({"cells":{},"features":[],"format":"llmconform-matrix/1","providers":[]})");
}

}  // namespace
}  // namespace llmconform::reports
