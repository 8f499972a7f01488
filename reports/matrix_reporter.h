// The provider × feature matrix (matrix.md and matrix.json): which provider
// dialects conform on which features. Rows are providers (ScenarioInfo
// provider, sorted; scenarios without one under "(none)", last); columns are
// features: the protocols in run order, then each scenario tag as "#tag",
// sorted. A cell sums the scenarios of its row and column:
//
//   outcome  the worst scenario outcome (Error > Fail > Pass > Skip)
//   passed   scenarios whose outcome is Pass
//   run      scenarios not skipped
//   label    "pass 3/3", "fail 1/4" (passed/run), "skip" when all were
//            skipped; an empty cell is "—" in Markdown and null in JSON.
//
// JSON: {"format":"llmconform-matrix/1","providers":[…],"features":[…],
//        "cells":{"<provider>":{"<feature>":{"outcome","passed","run",
//                 "skipped","scenarios","label"} | null}}}
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

struct MatrixCell {
  Outcome outcome = Outcome::kSkip;
  int passed = 0;
  int run = 0;
  int skipped = 0;
  int Scenarios() const { return run + skipped; }
  std::string Label() const;
  friend bool operator==(const MatrixCell&, const MatrixCell&) = default;
};

struct Matrix {
  std::vector<std::string> providers;
  std::vector<std::string> features;
  // cells[provider][feature]; nullopt where no scenario has both.
  std::vector<std::vector<std::optional<MatrixCell>>> cells;
};

Matrix BuildMatrix(const RunResult& run);
std::string RenderMatrixMarkdown(const Matrix& matrix);
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
