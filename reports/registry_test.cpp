#include "reports/registry.h"

#include <gtest/gtest.h>

#include <sstream>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

std::string ErrorOf(std::string_view spec) {
  auto r = ParseReportSpec(spec);
  return r ? std::string("no error") : r.error().message;
}

TEST(ReporterKinds, ListsTheBuiltInsWithTheirFiles) {
  std::vector<std::string> rows;
  for (const ReporterKind& k : ReporterKinds()) {
    rows.push_back(std::string(k.name) + " " + std::string(k.default_file) + " " +
                   std::string(k.companion_file));
    EXPECT_FALSE(k.description.empty()) << k.name;
    EXPECT_NE(k.factory, nullptr) << k.name;
  }
  EXPECT_EQ(rows, (std::vector<std::string>{"console  ", "json report.json ", "jsonl events.jsonl ",
                                            "junit junit.xml ", "markdown report.md ",
                                            "html report.html ", "matrix matrix.md matrix.json",
                                            "matrix-html matrix.html "}));
  EXPECT_EQ(FindReporterKind("junit")->default_file, "junit.xml");
  EXPECT_EQ(FindReporterKind("JUnit"), nullptr);
}

TEST(ParseReportSpec, DefaultsAndOptions) {
  auto junit = ParseReportSpec("junit");
  ASSERT_TRUE(junit) << junit.error().message;
  EXPECT_EQ(junit->kind->name, "junit");
  EXPECT_EQ(junit->out, "junit.xml");
  EXPECT_EQ(junit->companion, "");
  EXPECT_EQ(junit->spec, "junit");

  auto custom = ParseReportSpec("junit:out=ci/results.xml");
  ASSERT_TRUE(custom) << custom.error().message;
  EXPECT_EQ(custom->out, "ci/results.xml");

  auto matrix = ParseReportSpec("matrix:json=m.json,out=m.md");
  ASSERT_TRUE(matrix) << matrix.error().message;
  EXPECT_EQ(matrix->out, "m.md");
  EXPECT_EQ(matrix->companion, "m.json");
  EXPECT_EQ(ParseReportSpec("matrix")->companion, "matrix.json");

  EXPECT_EQ(ParseReportSpec("console")->out, "");                          // the terminal
  EXPECT_EQ(ParseReportSpec("json:out=C:/x=y.json")->out, "C:/x=y.json");  // the first '=' splits
}

TEST(ParseReportSpec, ErrorTexts) {
  EXPECT_EQ(ErrorOf("xml"),
            "--report 'xml': unknown reporter; expected one of console, json, jsonl, junit, "
            "markdown, html, matrix, matrix-html");
  EXPECT_EQ(
      ErrorOf(""),
      "--report '': missing reporter name; expected one of console, json, jsonl, junit, markdown, "
      "html, matrix, matrix-html");
  EXPECT_EQ(ErrorOf(":out=x"),
            "--report ':out=x': missing reporter name; expected one of console, json, jsonl, "
            "junit, markdown, html, matrix, matrix-html");
  EXPECT_EQ(ErrorOf("junit:file=x"),
            "--report 'junit:file=x': unknown option 'file'; expected out=FILE");
  EXPECT_EQ(ErrorOf("junit:json=x"),
            "--report 'junit:json=x': unknown option 'json'; expected out=FILE");
  EXPECT_EQ(ErrorOf("matrix:csv=x"),
            "--report 'matrix:csv=x': unknown option 'csv'; expected out=FILE or json=FILE");
  EXPECT_EQ(ErrorOf("junit:out"), "--report 'junit:out': option 'out' needs a value: out=FILE");
  EXPECT_EQ(ErrorOf("junit:out="), "--report 'junit:out=': option 'out' needs a value: out=FILE");
  EXPECT_EQ(ErrorOf("junit:"), "--report 'junit:': empty option; expected out=FILE");
  EXPECT_EQ(ErrorOf("matrix:out=a,"),
            "--report 'matrix:out=a,': empty option; expected out=FILE or json=FILE");
  EXPECT_EQ(ErrorOf("junit:out=a,out=b"), "--report 'junit:out=a,out=b': option 'out' given twice");
}

TEST(ParseReportSpecs, RefusesTwoReportersWritingOneFile) {
  const std::vector<std::string> ok = {"console", "json", "junit:out=ci.xml", "matrix"};
  auto parsed = ParseReportSpecs(ok);
  ASSERT_TRUE(parsed) << parsed.error().message;
  EXPECT_EQ(parsed->size(), 4u);

  const std::vector<std::string> clash = {"json", "markdown:out=report.json"};
  EXPECT_EQ(ParseReportSpecs(clash).error().message,
            "--report 'markdown:out=report.json': report.json is also written by --report 'json'");
  const std::vector<std::string> companion_clash = {"matrix", "json:out=matrix.json"};
  EXPECT_EQ(ParseReportSpecs(companion_clash).error().message,
            "--report 'json:out=matrix.json': matrix.json is also written by --report 'matrix'");
  const std::vector<std::string> two_consoles = {"console", "console"};
  EXPECT_EQ(ParseReportSpecs(two_consoles).error().message,
            "--report 'console': the terminal is also written by --report 'console'");
  const std::vector<std::string> bad = {"json", "xml"};
  EXPECT_EQ(ParseReportSpecs(bad).error().message,
            "--report 'xml': unknown reporter; expected one of console, json, jsonl, junit, "
            "markdown, html, matrix, matrix-html");
}

TEST(ReporterKinds, FactoriesWriteToTheStreamsTheyAreGiven) {
  for (const ReporterKind& k : ReporterKinds()) {
    std::ostringstream out, companion;
    std::unique_ptr<Reporter> r = k.factory({&out, &companion, {}});
    ASSERT_NE(r, nullptr) << k.name;
    ReplayRun(testing::SampleRun(), "specs", *r);
    EXPECT_FALSE(out.str().empty()) << k.name;
    EXPECT_EQ(companion.str().empty(), k.companion_file.empty()) << k.name;
  }
}

}  // namespace
}  // namespace llmconform::reports
