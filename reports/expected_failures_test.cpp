#include "reports/expected_failures.h"

#include <gtest/gtest.h>

#include "reports/json_reporter.h"
#include "reports/junit_reporter.h"
#include "reports/markdown_reporter.h"
#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

ScenarioResult Scenario(std::string dialect = "") {
  ScenarioResult s;
  s.info = ScenarioInfo{.protocol = "skill", .name = "git-quick-commit", .dialect = dialect};
  s.checks = {CheckResult::Pass("skill.a", "fine"),
              CheckResult::Fail("skill.b", "broken", {"x", "y", "/z"}),
              CheckResult::Fail("skill.c", "also broken", {"1", "2", "/3"})};
  return s;
}

ExpectedFailures Parse(std::string_view text) {
  auto parsed = ParseExpectedFailures("xf.yaml", text);
  EXPECT_TRUE(parsed.has_value()) << parsed.error().message;
  return parsed ? *parsed : ExpectedFailures{};
}

TEST(ParseExpectedFailures, ReadsTheThreeSpellingsFromYaml) {
  const ExpectedFailures b = Parse(
      "expected_failures:\n"
      "  - scenario: skill/git-quick-commit\n"
      "    reason: 'client bug #12'\n"
      "  - {scenario: 'toolcalls/x@deepseek', reason: no reasoning_content yet}\n"
      "  - scenario: multiturn/s1:multiturn.budget-trim\n"
      "    reason: trims late\n");
  ASSERT_EQ(b.entries.size(), 3u);
  EXPECT_EQ(b.entries[0],
            (ExpectedFailure{"skill/git-quick-commit", "", "", "client bug #12", "xf.yaml:2:5"}));
  EXPECT_EQ(b.entries[1].scenario, "toolcalls/x");
  EXPECT_EQ(b.entries[1].dialect, "deepseek");
  EXPECT_EQ(b.entries[1].Spelling(), "toolcalls/x@deepseek");
  EXPECT_EQ(b.entries[2].rule, "multiturn.budget-trim");
  EXPECT_EQ(b.entries[2].Spelling(), "multiturn/s1:multiturn.budget-trim");
}

TEST(ParseExpectedFailures, ReadsAJsonList) {
  const ExpectedFailures b = Parse(R"([{"scenario": "skill/a@groq:skill.b", "reason": "r"}])");
  ASSERT_EQ(b.entries.size(), 1u);
  EXPECT_EQ(b.entries[0].dialect, "groq");
  EXPECT_EQ(b.entries[0].rule, "skill.b");
  EXPECT_TRUE(Parse("").entries.empty());
  EXPECT_TRUE(Parse("expected_failures: []").entries.empty());
}

TEST(ParseExpectedFailures, LocatesEveryMistake) {
  const auto error = [](std::string_view text) {
    auto parsed = ParseExpectedFailures("xf.yaml", text);
    return parsed ? std::string("(parsed)") : parsed.error().message;
  };
  EXPECT_EQ(error("- scenario: skill/a\n"),
            "xf.yaml:1:3: \"reason\" is missing: say why this failure is expected");
  EXPECT_EQ(error("- reason: r\n"), "xf.yaml:1:3: \"scenario\" is missing");
  EXPECT_EQ(error("- {scenario: nameonly, reason: r}\n"),
            "xf.yaml:1:14: \"scenario\": \"nameonly\" is not PROTOCOL/NAME[@DIALECT][:RULE-ID]");
  EXPECT_EQ(error("- {scenario: 'skill/a:', reason: r}\n"),
            "xf.yaml:1:14: \"scenario\": \"skill/a:\" is not PROTOCOL/NAME[@DIALECT][:RULE-ID]");
  EXPECT_EQ(error("- {scenario: skill/a, reason: r, because: x}\n"),
            "xf.yaml:1:34: unknown field \"because\" (scenario, reason)");
  EXPECT_EQ(error("- {scenario: [skill/a], reason: r}\n"),
            "xf.yaml:1:14: \"scenario\": expected a string");
  EXPECT_EQ(error("others: []\n"),
            "xf.yaml:1:1: expected a list of entries, or an object with only "
            "\"expected_failures\"");
  EXPECT_EQ(error("- 3\n"),
            "xf.yaml:1:3: an entry must be an object {scenario: "
            "PROTOCOL/NAME[@DIALECT][:RULE], reason: …}");
  EXPECT_NE(error("- {scenario: skill/a, reason: [unclosed\n").find("xf.yaml:"), std::string::npos);
  // Aliases are not expanded into anything large: only scalars are read.
  EXPECT_EQ(error("a: &a [1, 2]\n"),
            "xf.yaml:1:1: expected a list of entries, or an object with only "
            "\"expected_failures\"");
  EXPECT_EQ(error(std::string(10000, '[')).substr(0, 8), "xf.yaml:");
}

TEST(CheckExpectedFailuresKnown, NamesAnUnknownScenarioOrRule) {
  const ExpectedFailures b = Parse("- {scenario: skill/nope, reason: r}\n");
  const auto known = CheckExpectedFailuresKnown(b, {"skill/git-quick-commit"}, {});
  ASSERT_FALSE(known);
  EXPECT_EQ(known.error().message,
            "xf.yaml:1:3: no scenario is named \"skill/nope\" (see `llmconform list`)");
  const ExpectedFailures r = Parse("- {scenario: 'skill/git-quick-commit:skill.zz', reason: r}\n");
  const std::vector<RuleInfo> rules = {{.id = "skill.b", .protocol = "skill"}};
  EXPECT_FALSE(CheckExpectedFailuresKnown(r, {"skill/git-quick-commit"}, rules));
  const ExpectedFailures ok = Parse("- {scenario: 'skill/git-quick-commit:skill.b', reason: r}\n");
  EXPECT_TRUE(CheckExpectedFailuresKnown(ok, {"skill/git-quick-commit"}, rules));
}

TEST(ApplyExpectedFailures, AScenarioEntryTurnsEveryFailureIntoAnExpectedOne) {
  ScenarioResult s = Scenario();
  ApplyExpectedFailures(Parse("- {scenario: skill/git-quick-commit, reason: bug 12}\n"), s);
  ASSERT_EQ(s.checks.size(), 3u);
  EXPECT_EQ(s.checks[0].outcome, Outcome::kPass);
  EXPECT_EQ(s.checks[1].outcome, Outcome::kSkip);
  EXPECT_EQ(s.checks[1].expected_failure, "bug 12");
  EXPECT_EQ(s.checks[1].message, "expected failure (bug 12): broken");
  EXPECT_TRUE(s.checks[1].evidence.has_value());
  EXPECT_EQ(s.checks[2].expected_failure, "bug 12");
  EXPECT_EQ(s.Overall(), Outcome::kPass);
  EXPECT_EQ(s.ExpectedFailures(), 2);
}

TEST(ApplyExpectedFailures, ARuleEntryTakesThatRuleOnly) {
  ScenarioResult s = Scenario();
  ApplyExpectedFailures(Parse("- {scenario: 'skill/git-quick-commit:skill.c', reason: r}\n"), s);
  EXPECT_EQ(s.checks[1].outcome, Outcome::kFail);
  EXPECT_EQ(s.checks[2].outcome, Outcome::kSkip);
  EXPECT_EQ(s.Overall(), Outcome::kFail);
}

TEST(ApplyExpectedFailures, ADialectEntryTakesThatDialectOnly) {
  const ExpectedFailures b = Parse("- {scenario: 'skill/git-quick-commit@deepseek', reason: r}\n");
  ScenarioResult plain = Scenario();
  ApplyExpectedFailures(b, plain);
  EXPECT_EQ(plain.Overall(), Outcome::kFail);
  EXPECT_EQ(plain.checks.size(), 3u);  // not covered: not stale either
  ScenarioResult deepseek = Scenario("deepseek");
  ApplyExpectedFailures(b, deepseek);
  EXPECT_EQ(deepseek.Overall(), Outcome::kPass);
}

TEST(ApplyExpectedFailures, AnEntryThatNowPassesIsAStaleBaselineFailure) {
  ScenarioResult s = Scenario();
  s.checks.resize(1);  // only the pass is left: the client was fixed
  ApplyExpectedFailures(Parse("- {scenario: skill/other, reason: r}\n"
                              "- {scenario: 'skill/git-quick-commit:skill.b', reason: bug 12}\n"),
                        s);
  ASSERT_EQ(s.checks.size(), 2u);
  const CheckResult& stale = s.checks[1];
  EXPECT_EQ(stale.rule, kStaleBaselineRule);
  EXPECT_EQ(stale.outcome, Outcome::kFail);
  EXPECT_EQ(stale.message,
            "stale baseline: skill/git-quick-commit:skill.b (xf.yaml:2:3) is listed as an "
            "expected failure but now passes: remove it");
  EXPECT_EQ(stale.evidence->where, "xf.yaml:2:3");
  EXPECT_EQ(s.Overall(), Outcome::kFail);
}

TEST(ApplyExpectedFailures, AnErrorIsNeitherExpectedNorStale) {
  ScenarioResult s = Scenario();
  s.checks = {CheckResult::Error("skill.b", "the driver threw")};
  ApplyExpectedFailures(Parse("- {scenario: skill/git-quick-commit, reason: r}\n"), s);
  ASSERT_EQ(s.checks.size(), 1u);
  EXPECT_EQ(s.checks[0].outcome, Outcome::kError);
}

TEST(ExpectedFailureReports, JsonKeepsTheReasonAndJunitSkipsWithIt) {
  RunResult run = testing::SampleRun();
  run.scenarios[3].checks[1].outcome = Outcome::kSkip;
  run.scenarios[3].checks[1].expected_failure = "bug <12>";
  run.scenarios[3].checks[1].message = "expected failure (bug <12>): no tag";
  const std::string json = RenderJsonReport(run);
  EXPECT_NE(json.find(R"("expected_failure": "bug <12>")"), std::string::npos) << json;
  auto back = ReportFromJson(nlohmann::json::parse(json));
  ASSERT_TRUE(back) << back.error().message;
  EXPECT_EQ(back->scenarios[3].checks[1].expected_failure, "bug <12>");
  const std::string junit = RenderJUnit(run);
  EXPECT_NE(junit.find("<skipped>expected failure (bug &lt;12&gt;): no tag</skipped>"),
            std::string::npos)
      << junit;
  const std::string md = RenderMarkdown(run);
  const std::size_t section = md.find("## Expected failures");
  ASSERT_NE(section, std::string::npos) << md;
  EXPECT_NE(md.find("bug", section), std::string::npos) << md;
}

}  // namespace
}  // namespace llmconform::reports
