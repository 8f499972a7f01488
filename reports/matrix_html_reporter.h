// The provider × feature matrix as one self-contained HTML page
// (matrix.html): the matrix of matrix_reporter.h as a table, a cell coloured
// by its outcome and labelled as in matrix.md ("pass 3/3", "skip", "—" for
// no scenario), with the run's scenario and check totals above it, in the
// report page's style (inline CSS, no scripts, no external assets). Every
// text is escaped. Cells carry data-provider and data-feature attributes.
#pragma once

#include <ostream>
#include <string>

#include "reports/matrix_reporter.h"
#include "reports/reporter.h"

namespace llmconform::reports {

std::string RenderMatrixHtml(const RunResult& run);

// Pieces shared with the compatibility page (compat_page.h): the matrix
// table's extra stylesheet, and the table alone — each failed scenario linked
// as `link_prefix` + "report.html#s<index+1>".
std::string_view MatrixHtmlStyle();
std::string MatrixHtmlTable(const Matrix& matrix, std::string_view link_prefix);

// Writes RenderMatrixHtml to the stream at OnRunEnd.
class MatrixHtmlReporter final : public CumulativeReporter {
 public:
  explicit MatrixHtmlReporter(std::ostream& out) : CumulativeReporter(out, RenderMatrixHtml) {}
};

}  // namespace llmconform::reports
