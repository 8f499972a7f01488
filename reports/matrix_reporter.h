// The provider × feature matrix (matrix.md and matrix.json): which provider
// dialects conform on which features. Rows are providers (ScenarioInfo
// provider, sorted; scenarios without one under "(none)", last); columns are
// features: the protocols in run order, then each scenario tag as "#tag",
// sorted. In a run --dialects (any scenario has a dialect) rows are the
// dialects and columns the client features scenarios name in "features" (and
// their "tags"), without "#", in kFeatureOrder's order and then sorted;
// scenarios that ran without a dialect (no trace) are left out. A cell sums
// the scenarios of its row and column:
//
//   outcome   the worst scenario outcome (Error > Fail > Pass > Skip)
//   passed    scenarios whose outcome is Pass
//   run       scenarios not skipped
//   label     "pass 3/3", "fail 1/4" (passed/run), "skip" when all were
//             skipped; an empty cell is "—" in Markdown and null in JSON.
//   failures  each failed or errored scenario: its id, its index in the run
//             (the HTML report's anchor "report.html#s<index+1>") and the
//             deviations of its dialect that changed its replies
//             (ScenarioInfo::deviations)
//
// JSON: {"format":"llmconform-matrix/1","providers":[…],"features":[…],
//        "cells":{"<provider>":{"<feature>":{"outcome","passed","run",
//                 "skipped","scenarios","label", and when a scenario failed
//                 "deviations":[…],"failures":[{"scenario","report",
//                 "deviations"}]} | null}}}
#pragma once

#include <nlohmann/json.hpp>
#include <optional>
#include <ostream>
#include <string>
#include <vector>

#include "reports/reporter.h"

namespace llmconform::reports {

inline constexpr std::string_view kMatrixFormat = "llmconform-matrix/1";
inline constexpr std::string_view kNoProvider = "(none)";

// The client features of a run --dialects matrix, in column order (a
// scenario may name others; they follow, sorted).
inline constexpr std::string_view kFeatureOrder[] = {
    "plain-text", "streamed-text", "tool-call",     "streamed-tool-calls", "parallel-tool-calls",
    "reasoning",  "usage",         "error-mapping", "retry-429",           "cut",
    "no-done",    "keep-alive",    "timeout"};

struct MatrixFailure {
  std::string scenario;                 // ScenarioInfo::Id()
  std::size_t index = 0;                // in RunResult::scenarios
  std::vector<std::string> deviations;  // ScenarioInfo::deviations
  std::string ReportLink() const;       // "report.html#s<index+1>"
  friend bool operator==(const MatrixFailure&, const MatrixFailure&) = default;
};

struct MatrixCell {
  Outcome outcome = Outcome::kSkip;
  int passed = 0;
  int run = 0;
  int skipped = 0;
  std::vector<MatrixFailure> failures;
  int Scenarios() const { return run + skipped; }
  // Counts scenario `s`, the run's scenario number `index`, into the cell.
  void Add(const ScenarioResult& s, std::size_t index);
  std::string Label() const;
  // The deviations of all failures, each once, in first-seen order.
  std::vector<std::string> Deviations() const;
  friend bool operator==(const MatrixCell&, const MatrixCell&) = default;
};

struct Matrix {
  // "dialect" in a run --dialects matrix, else "provider": the rows' heading.
  std::string row_label = "provider";
  std::vector<std::string> providers;
  std::vector<std::string> features;
  // cells[provider][feature]; nullopt where no scenario has both.
  std::vector<std::vector<std::optional<MatrixCell>>> cells;
};

Matrix BuildMatrix(const RunResult& run);
std::string RenderMatrixMarkdown(const Matrix& matrix);
// The table alone (no heading, no legend): a cell is "✅ pass 3/3", with the
// deviations of its failures after it in parentheses, or "—".
std::string MatrixMarkdownTable(const Matrix& matrix);
nlohmann::json MatrixToJson(const Matrix& matrix);

// Writes the Markdown matrix to `markdown` and the JSON one (two-space
// indentation) to `json` at OnRunEnd; either may be null to skip that form.
class MatrixReporter final : public Reporter {
 public:
  MatrixReporter(std::ostream* markdown, std::ostream* json) : markdown_(markdown), json_(json) {}
  void OnRunEnd(const RunResult& run) override;

 private:
  std::ostream* markdown_;
  std::ostream* json_;
};

}  // namespace llmconform::reports
