#include "reports/markdown_reporter.h"

#include <gtest/gtest.h>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(MarkdownReporter, MatchesGolden) {
  testing::ExpectMatchesGolden("report.md",
                               testing::RenderWith<MarkdownReporter>(testing::SampleRun()));
}

TEST(MarkdownReporter, ShowsEvidenceInFencesThatCannotBeClosedFromInside) {
  RunResult run;
  run.scenarios = {{{"p", "s", "", "", "", "", {}},
                    {CheckResult::Fail("r", "m", {"```\nnot code", "x", "/a"})},
                    0}};
  const std::string md = testing::RenderWith<MarkdownReporter>(run);
  EXPECT_NE(md.find("expected:\n\n````text\n```\nnot code\n````\n"), std::string::npos) << md;
}

TEST(MarkdownReporter, SaysSoWhenNothingFailed) {
  RunResult run;
  run.scenarios = {{{"p", "s", "", "", "", "", {}}, {CheckResult::Pass("r", "ok")}, 0}};
  const std::string md = testing::RenderWith<MarkdownReporter>(run);
  EXPECT_NE(md.find("\u2705 **conformant**"), std::string::npos) << md;
  EXPECT_TRUE(md.ends_with("## Failures and errors\n\nNone.\n")) << md;
}

}  // namespace
}  // namespace llmconform::reports
