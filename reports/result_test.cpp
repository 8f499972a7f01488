#include "reports/result.h"

#include <gtest/gtest.h>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

ScenarioResult WithChecks(std::vector<CheckResult> checks) { return {{}, std::move(checks), 0}; }

TEST(OutcomeName, NamesEveryOutcomeAndParsesItBack) {
  EXPECT_EQ(OutcomeName(Outcome::kPass), "pass");
  EXPECT_EQ(OutcomeName(Outcome::kFail), "fail");
  EXPECT_EQ(OutcomeName(Outcome::kSkip), "skip");
  EXPECT_EQ(OutcomeName(Outcome::kError), "error");
  for (Outcome o : {Outcome::kPass, Outcome::kFail, Outcome::kSkip, Outcome::kError}) {
    EXPECT_EQ(OutcomeFromName(OutcomeName(o)), o);
  }
  EXPECT_EQ(OutcomeFromName("PASS"), std::nullopt);
  EXPECT_EQ(OutcomeFromName(""), std::nullopt);
}

TEST(CheckResult, FactoriesSetOutcomeAndEvidence) {
  const CheckResult pass = CheckResult::Pass("r1", "ok");
  EXPECT_EQ(pass.rule, "r1");
  EXPECT_EQ(pass.outcome, Outcome::kPass);
  EXPECT_EQ(pass.message, "ok");
  EXPECT_FALSE(pass.evidence);

  const CheckResult fail = CheckResult::Fail("r2", "bad", {"a", "b", "/x"});
  EXPECT_EQ(fail.outcome, Outcome::kFail);
  ASSERT_TRUE(fail.evidence);
  EXPECT_EQ(*fail.evidence, (Evidence{"a", "b", "/x"}));

  EXPECT_EQ(CheckResult::Skip("r3", "n/a").outcome, Outcome::kSkip);
  EXPECT_FALSE(CheckResult::Skip("r3", "n/a").evidence);
  EXPECT_EQ(CheckResult::Error("r4", "broke").outcome, Outcome::kError);
  EXPECT_FALSE(CheckResult::Error("r4", "broke").evidence);
}

TEST(ScenarioResult, OverallIsTheWorstOutcome) {
  const auto pass = CheckResult::Pass("r", ""), skip = CheckResult::Skip("r", "");
  const auto fail = CheckResult::Fail("r", "", {}), error = CheckResult::Error("r", "");
  EXPECT_EQ(WithChecks({}).Overall(), Outcome::kSkip);
  EXPECT_EQ(WithChecks({skip, skip}).Overall(), Outcome::kSkip);
  EXPECT_EQ(WithChecks({skip, pass, skip}).Overall(), Outcome::kPass);
  EXPECT_EQ(WithChecks({pass, fail, skip}).Overall(), Outcome::kFail);
  EXPECT_EQ(WithChecks({error, fail, pass}).Overall(), Outcome::kError);
  EXPECT_EQ(WithChecks({fail, error}).Overall(), Outcome::kError);
}

TEST(Totals, CountsByOutcome) {
  Totals t;
  for (Outcome o : {Outcome::kPass, Outcome::kPass, Outcome::kFail, Outcome::kSkip, Outcome::kError,
                    Outcome::kError, Outcome::kError}) {
    t.Add(o);
  }
  EXPECT_EQ(t, (Totals{2, 1, 1, 3}));
  EXPECT_EQ(t.Total(), 7);
  EXPECT_EQ(t.Of(Outcome::kError), 3);
  t += Totals{1, 1, 1, 1};
  EXPECT_EQ(t, (Totals{3, 2, 2, 4}));
}

TEST(RunResult, TotalsOfTheSampleRun) {
  const RunResult run = testing::SampleRun();
  EXPECT_EQ(run.ScenarioTotals(), (Totals{3, 1, 1, 1}));
  EXPECT_EQ(run.CheckTotals(), (Totals{6, 1, 2, 1}));
  const std::vector<ProtocolTotals> by_protocol = run.TotalsByProtocol();
  ASSERT_EQ(by_protocol.size(), 2u);
  EXPECT_EQ(by_protocol[0], (ProtocolTotals{"multiturn", {2, 0, 1, 0}, {4, 0, 1, 0}}));
  EXPECT_EQ(by_protocol[1], (ProtocolTotals{"skill", {1, 1, 0, 1}, {2, 1, 1, 1}}));
}

TEST(RunResult, ExitCodeFollowsTheArchitecture) {
  RunResult run;
  EXPECT_EQ(run.ExitCode(), 0);  // nothing ran, nothing failed
  run.scenarios.push_back(WithChecks({CheckResult::Pass("r", ""), CheckResult::Skip("r", "")}));
  EXPECT_EQ(run.ExitCode(), 0);
  run.scenarios.push_back(WithChecks({CheckResult::Fail("r", "", {})}));
  EXPECT_EQ(run.ExitCode(), 1);
  run.scenarios.push_back(WithChecks({CheckResult::Error("r", "")}));
  EXPECT_EQ(run.ExitCode(), 3);  // a broken harness outranks a failing implementation
}

TEST(RunResult, FindRulePrefersTheScenariosProtocol) {
  RunResult run;
  run.rules = {{"shared.id", "skill", "a", "in skill", "must"},
               {"shared.id", "action", "b", "in action", "must"}};
  ASSERT_NE(run.FindRule("action", "shared.id"), nullptr);
  EXPECT_EQ(run.FindRule("action", "shared.id")->text, "in action");
  EXPECT_EQ(run.FindRule("wire", "shared.id")->text, "in skill");
  EXPECT_EQ(run.FindRule("skill", "missing"), nullptr);
}

TEST(ScenarioInfo, IdJoinsProtocolAndName) {
  EXPECT_EQ((ScenarioInfo{"skill", "git-quick-commit", "", "", "", "", {}}).Id(),
            "skill/git-quick-commit");
}

}  // namespace
}  // namespace llmconform::reports
