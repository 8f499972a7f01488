#include "reports/baseline.h"

#include <gtest/gtest.h>

#include "reports/json_reporter.h"
#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

// The sample run, with the failing skill check fixed, the passing multiturn
// check broken, a skip turned into a pass, one check dropped and one added.
RunResult Changed() {
  RunResult run = testing::SampleRun();
  run.scenarios[3].checks[1] =
      CheckResult::Pass("skill.reply-starts-with-tag", "The reply starts with <COMMAND>.");
  run.scenarios[0].checks[1] =
      CheckResult::Fail("multiturn.budget-trim", "Kept 1 message too many.", {"2", "3", "/m"});
  run.scenarios[4].checks[1] = CheckResult::Pass("skill.step-counter", "Step 2 of 100.");
  run.scenarios[1].checks.pop_back();
  run.scenarios[5].checks.push_back(
      CheckResult::Fail("skill.parameters-listed", "No parameters.", {"", "", ""}));
  return run;
}

TEST(DiffRuns, NoChangesAgainstItself) {
  EXPECT_TRUE(DiffRuns(testing::SampleRun(), testing::SampleRun()).empty());
  EXPECT_EQ(RenderBaselineDiffMarkdown({}),
            "## Changes against the baseline\n\nNo changes against the baseline.\n");
}

TEST(DiffRuns, ClassifiesEachChangeInKindOrder) {
  const auto changes = DiffRuns(testing::SampleRun(), Changed());
  const std::vector<BaselineChange> expected = {
      {ChangeKind::kNewlyFailing, "multiturn", "s1-standard-assembly", "multiturn.budget-trim",
       Outcome::kPass, Outcome::kFail, "Kept 1 message too many."},
      {ChangeKind::kNewlyPassing, "skill", "git-quick-commit", "skill.reply-starts-with-tag",
       Outcome::kFail, Outcome::kPass, "The reply starts with <COMMAND>."},
      {ChangeKind::kOutcomeChanged, "skill", "ask-user", "skill.step-counter", Outcome::kSkip,
       Outcome::kPass, "Step 2 of 100."},
      {ChangeKind::kAdded, "skill", "ollama-keepalive", "skill.parameters-listed", std::nullopt,
       Outcome::kFail, "No parameters."},
      {ChangeKind::kRemoved, "multiturn", "s2-trim-oldest", "multiturn.budget-trim", Outcome::kPass,
       std::nullopt, "Kept the newest 2 of 4 history messages."},
  };
  EXPECT_EQ(changes, expected);
  EXPECT_TRUE(HasRegressions(changes));
}

TEST(DiffRuns, ARuleCheckedTwiceCountsAsItsWorstResult) {
  RunResult before, after;
  before.scenarios = {{{"p", "s", "", "", "", "", {}},
                       {CheckResult::Pass("r", "one"), CheckResult::Pass("r", "two")},
                       0}};
  after = before;
  after.scenarios[0].checks[1] = CheckResult::Error("r", "broke");
  const auto changes = DiffRuns(before, after);
  ASSERT_EQ(changes.size(), 1u);
  EXPECT_EQ(changes[0].kind, ChangeKind::kNewlyFailing);
  EXPECT_EQ(changes[0].after, Outcome::kError);
  EXPECT_EQ(changes[0].message, "broke");
}

TEST(HasRegressions, OnlyForNewFailures) {
  RunResult before = testing::SampleRun(), after = testing::SampleRun();
  after.scenarios[3].checks[1] = CheckResult::Pass("skill.reply-starts-with-tag", "fixed");
  EXPECT_FALSE(HasRegressions(DiffRuns(before, after)));  // only better
  after.scenarios.push_back(
      {{"action", "new", "", "", "", "", {}}, {CheckResult::Fail("a", "", {})}, 0});
  EXPECT_TRUE(HasRegressions(DiffRuns(before, after)));  // a new scenario that fails
}

TEST(DiffAgainstBaseline, ReadsTheCanonicalReport) {
  const auto changes = DiffAgainstBaseline(ReportToJson(testing::SampleRun()), Changed());
  ASSERT_TRUE(changes) << changes.error().message;
  EXPECT_EQ(changes->size(), 5u);
}

TEST(DiffAgainstBaseline, PrefixesErrorsInTheBaseline) {
  nlohmann::json report = ReportToJson(testing::SampleRun());
  report["scenarios"][0]["name"] = 3;
  const auto changes = DiffAgainstBaseline(report, testing::SampleRun());
  ASSERT_FALSE(changes);
  EXPECT_EQ(changes.error().message,
            "baseline report: /scenarios/0/name: expected string, got number");
}

TEST(RenderBaselineDiffMarkdown, TablesEachKind) {
  EXPECT_EQ(RenderBaselineDiffMarkdown(DiffRuns(testing::SampleRun(), Changed())),
            "## Changes against the baseline\n\n"
            "1 newly failing, 1 newly passing, 1 changed, 1 added, 1 removed.\n\n"
            "### Newly failing (1)\n\n"
            "| scenario | rule | before | after | message |\n| --- | --- | --- | --- | --- |\n"
            "| `multiturn/s1-standard-assembly` | `multiturn.budget-trim` | \u2705 pass | \u274C "
            "fail | Kept 1 "
            "message too many. |\n\n"
            "### Newly passing (1)\n\n"
            "| scenario | rule | before | after | message |\n| --- | --- | --- | --- | --- |\n"
            "| `skill/git-quick-commit` | `skill.reply-starts-with-tag` | \u274C fail | \u2705 "
            "pass | The reply "
            "starts with \\<COMMAND\\>. |\n\n"
            "### Changed (1)\n\n"
            "| scenario | rule | before | after | message |\n| --- | --- | --- | --- | --- |\n"
            "| `skill/ask-user` | `skill.step-counter` | \u23ED\uFE0F skip | \u2705 pass | Step 2 "
            "of 100. |\n\n"
            "### Added (1)\n\n"
            "| scenario | rule | before | after | message |\n| --- | --- | --- | --- | --- |\n"
            "| `skill/ollama-keepalive` | `skill.parameters-listed` | — | \u274C fail | No "
            "parameters. |\n\n"
            "### Removed (1)\n\n"
            "| scenario | rule | before | after | message |\n| --- | --- | --- | --- | --- |\n"
            "| `multiturn/s2-trim-oldest` | `multiturn.budget-trim` | \u2705 pass | — | Kept the "
            "newest 2 of 4 "
            "history messages. |\n");
}

}  // namespace
}  // namespace llmconform::reports
