// A self-contained HTML report (report.html): one page, inline CSS, no
// scripts, no external assets, so it can be attached to a CI job or mailed.
//
//   header    verdict, tool version, start time, duration; scenario and check
//             totals with a bar by outcome; a table a protocol; links to every
//             failing or erring scenario
//   sections  one a protocol; in it one block a scenario: outcome badge, name,
//             description, provider, time, files, then a table of its checks
//             (outcome badge, rule id with the catalogue's text, message); a
//             failure's evidence in <details> (open), expected and actual side
//             by side, `where` above them
//
// Every text from results is escaped (HtmlEscape after ReadableText), so a
// message holding `<script>` shows as text. Light and dark colour schemes.
#pragma once

#include <ostream>
#include <string>

#include "reports/reporter.h"

namespace llmconform::reports {

std::string RenderHtml(const RunResult& run);

// Pieces shared with the matrix page (matrix_html_reporter.h): the inline
// stylesheet, and a totals card — the count, a bar by outcome and the counts
// under it, as <div class="card"> with <span class="num">, <span
// class="what"> and one <span class="OUTCOME-c"><b>N</b> OUTCOME</span> each.
std::string_view HtmlReportStyle();
std::string HtmlTotalsCard(std::string_view what, const Totals& totals);

// Writes RenderHtml to the stream at OnRunEnd.
class HtmlReporter final : public CumulativeReporter {
 public:
  explicit HtmlReporter(std::ostream& out) : CumulativeReporter(out, RenderHtml) {}
};

}  // namespace llmconform::reports
