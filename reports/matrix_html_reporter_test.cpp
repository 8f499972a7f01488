#include "reports/matrix_html_reporter.h"

#include <gtest/gtest.h>

#include "base/format.h"
#include "reports/matrix_reporter.h"
#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

TEST(MatrixHtmlReporter, HasACellForEveryProviderAndFeature) {
  const RunResult run = testing::SampleRun();
  const std::string html = testing::RenderWith<MatrixHtmlReporter>(run);
  const Matrix m = BuildMatrix(run);
  std::size_t cells = 0;
  for (std::size_t at = html.find("<td class=\"cell "); at != std::string::npos;
       at = html.find("<td class=\"cell ", at + 1))
    ++cells;
  EXPECT_EQ(cells, m.providers.size() * m.features.size());
  for (std::size_t p = 0; p < m.providers.size(); ++p) {
    for (std::size_t f = 0; f < m.features.size(); ++f) {
      if (const auto& cell = m.cells[p][f]) {
        // The label, then (a failure) the deviations and links, then </td>.
        EXPECT_NE(
            html.find(Format("data-provider=\"{}\" data-feature=\"{}\">{}{}", m.providers[p],
                             m.features[f], cell->Label(), cell->failures.empty() ? "</td>" : "<")),
            std::string::npos)
            << m.providers[p] << " " << m.features[f];
      }
    }
  }
  EXPECT_NE(html.find("<span class=\"num\">" + std::to_string(run.ScenarioTotals().Total())),
            std::string::npos);
  EXPECT_EQ(html.find("<script"), std::string::npos);
}

TEST(MatrixHtmlReporter, EscapesEveryText) {
  const std::string hostile = "<script>x</script>";
  RunResult run;
  run.tool_version = hostile;
  run.scenarios = {
      {{hostile, "n", "", "", "", hostile, {hostile}}, {CheckResult::Pass("r", "")}, 0}};
  const std::string html = testing::RenderWith<MatrixHtmlReporter>(run);
  EXPECT_EQ(html.find("<script"), std::string::npos);
  EXPECT_NE(html.find("&lt;script&gt;"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::reports
