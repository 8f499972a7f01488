// The provider × feature matrix as one self-contained HTML page
// (matrix.html): the matrix of matrix_reporter.h as a table, a cell coloured
// by its outcome and labelled as in matrix.md ("pass 3/3", "skip", "—" for
// no scenario), with the run's scenario and check totals above it, in the
// report page's style (inline CSS, no scripts, no external assets). Every
// text is escaped. Cells carry data-provider and data-feature attributes.
#pragma once

#include <ostream>
#include <string>

#include "reports/reporter.h"

namespace llmconform::reports {

std::string RenderMatrixHtml(const RunResult& run);

// Writes RenderMatrixHtml to the stream at OnRunEnd.
class MatrixHtmlReporter final : public CumulativeReporter {
 public:
  explicit MatrixHtmlReporter(std::ostream& out) : CumulativeReporter(out, RenderMatrixHtml) {}
};

}  // namespace llmconform::reports
