#include "reports/html_reporter.h"

#include <gtest/gtest.h>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(HtmlReporter, MatchesGolden) {
  testing::ExpectMatchesGolden("report.html",
                               testing::RenderWith<HtmlReporter>(testing::SampleRun()));
}

TEST(HtmlReporter, EscapesScriptInEveryText) {
  const std::string hostile = "<script>alert('x')</script>";
  RunResult run;
  run.tool_version = hostile;
  run.started_at = hostile;
  run.rules = {{"r" + hostile, "p", hostile, hostile, hostile}};
  run.scenarios = {{{hostile, hostile, hostile, hostile, hostile, hostile, {hostile}},
                    {CheckResult::Fail("r" + hostile, hostile, {hostile, hostile, hostile}),
                     CheckResult::Error(hostile, hostile)},
                    0}};
  const std::string html = testing::RenderWith<HtmlReporter>(run);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_EQ(html.find("alert('x')"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;alert(&#39;x&#39;)&lt;/script&gt;"), std::string::npos);
}

TEST(HtmlReporter, IsSelfContained) {
  const std::string html = testing::RenderWith<HtmlReporter>(testing::SampleRun());
  EXPECT_TRUE(html.starts_with("<!DOCTYPE html>\n"));
  EXPECT_TRUE(html.ends_with("</html>\n"));
  for (const char* external :
       {"<script", "<link", "src=", "@import", "url(", "http://", "https://"}) {
    EXPECT_EQ(html.find(external), std::string::npos) << external;
  }
}

TEST(HtmlReporter, PutsEvidenceSideBySideInDetails) {
  const std::string html = testing::RenderWith<HtmlReporter>(testing::SampleRun());
  EXPECT_NE(
      html.find("<tr class=\"evidence-row\"><td></td><td colspan=\"2\">"
                "<details open><summary>evidence at <code>/outputs/steps/0/reply</code></summary>\n"
                "<div class=\"evidence\"><div class=\"expected\"><h4>expected</h4><pre>a reply "
                "that starts "
                "with one of &lt;COMMAND&gt;, &lt;ASK&gt;, &lt;INFO&gt;, &lt;DONE&gt;</pre></div>"
                "<div class=\"actual\"><h4>actual</h4><pre>Sure! &lt;script&gt;"),
      std::string::npos);
}

}  // namespace
}  // namespace llmconform::reports
