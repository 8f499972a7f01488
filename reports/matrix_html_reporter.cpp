#include "reports/matrix_html_reporter.h"

#include "base/format.h"
#include "reports/html_reporter.h"
#include "reports/matrix_reporter.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

constexpr std::string_view kMatrixStyle = R"css(
table.matrix td.cell { text-align: center; font-weight: 600; white-space: nowrap; }
table.matrix td.cell.pass { color: var(--pass); background: var(--pass-bg); }
table.matrix td.cell.fail { color: var(--fail); background: var(--fail-bg); }
table.matrix td.cell.skip { color: var(--skip); background: var(--skip-bg); }
table.matrix td.cell.error { color: var(--error); background: var(--error-bg); }
table.matrix td.cell.none { color: var(--muted); font-weight: 400; }
table.matrix th.feature { text-align: center; }
p.legend { color: var(--muted); margin: 12px 0 0; }
.page { max-width: 1800px; }
table.matrix td.cell code.dia { display: block; font-size: 11px; font-weight: 400; }
table.matrix td.cell span.failed { display: block; font-size: 11px; font-weight: 400;
  white-space: normal; min-width: 140px; max-width: 220px; margin: 0 auto; }
table.matrix td.cell span.failed a { color: inherit; margin: 0 3px; }
)css";

// "toolcalls/parallel-tool-calls@gemini" -> "parallel-tool-calls": the cell
// already says the dialect, and the title attribute has the whole id.
std::string_view ScenarioName(std::string_view id) {
  if (const auto at = id.rfind('@'); at != std::string_view::npos) id = id.substr(0, at);
  if (const auto slash = id.find('/'); slash != std::string_view::npos) id = id.substr(slash + 1);
  return id;
}

}  // namespace

std::string_view MatrixHtmlStyle() { return kMatrixStyle; }

std::string MatrixHtmlTable(const Matrix& m, std::string_view link_prefix) {
  std::string out = "<div class=\"scroll\"><table class=\"matrix\">\n<thead><tr>";
  out += Format("<th>{}</th>", HtmlText(m.row_label));
  for (const std::string& f : m.features)
    out += Format("<th class=\"feature\">{}</th>", HtmlText(f));
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t p = 0; p < m.providers.size(); ++p) {
    out += Format("<tr><td>{}</td>", HtmlText(m.providers[p]));
    for (std::size_t f = 0; f < m.features.size(); ++f) {
      const auto& cell = m.cells[p][f];
      std::string why;  // a failure: the deviations, and links to the failed scenarios
      if (cell && !cell->failures.empty()) {
        for (const std::string& d : cell->Deviations())
          why += Format("<code class=\"dia\">{}</code>", HtmlText(d));
        std::string links;
        constexpr std::size_t kShown = 3;  // a cell stays small; the rest are counted
        for (std::size_t i = 0; i < cell->failures.size() && i < kShown; ++i) {
          const MatrixFailure& fail = cell->failures[i];
          links += Format("<a href=\"{}\" title=\"{}\">{}</a> ",
                          HtmlText(std::string(link_prefix) + fail.ReportLink()),
                          HtmlText(fail.scenario), HtmlText(ScenarioName(fail.scenario)));
        }
        if (cell->failures.size() > kShown)
          links += Format("+{} more", cell->failures.size() - kShown);
        why += Format("<span class=\"failed\">{}</span>", links);
      }
      out += Format("<td class=\"cell {}\" data-provider=\"{}\" data-feature=\"{}\">{}{}</td>",
                    cell ? OutcomeName(cell->outcome) : "none", HtmlText(m.providers[p]),
                    HtmlText(m.features[f]), cell ? HtmlText(cell->Label()) : "—", why);
    }
    out += "</tr>\n";
  }
  out += "</tbody>\n</table></div>\n";
  return out;
}

std::string RenderMatrixHtml(const RunResult& run) {
  const Matrix m = BuildMatrix(run);
  std::string out = Format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>llmconform matrix</title>\n<style>{}{}</style>\n</head>\n",
      HtmlReportStyle(), kMatrixStyle);
  out += "<body>\n<div class=\"page\">\n<header class=\"run\">\n";
  out += "<h1>llmconform provider × feature matrix</h1>\n";
  out +=
      Format("<p class=\"meta\">llmconform {} · started {} · took {}</p>\n",
             HtmlText(run.tool_version), HtmlText(run.started_at), HumanDuration(run.duration_ms));
  out += "<div class=\"cards\">\n" + HtmlTotalsCard("scenarios", run.ScenarioTotals()) +
         HtmlTotalsCard("checks", run.CheckTotals()) + "</div>\n";
  out += MatrixHtmlTable(m, "");
  out +=
      "<p class=\"legend\">A cell: the worst scenario outcome, then "
      "scenarios passed / scenarios run (skipped ones not counted); — no scenario. ";
  out +=
      m.row_label == "dialect"
          ? "Rows are the dialects the replies were rewritten into (<code>run --dialects</code>), "
            "columns the client features the scenarios name. A failed cell names the "
            "deviations of its dialect that changed the failed scenarios' replies and links "
            "each failed scenario to its entry in report.html.</p>\n</header>\n"
          : "Columns after the protocols are scenario tags.</p>\n</header>\n";
  out += Format("<footer>llmconform {} · {}</footer>\n</div>\n</body>\n</html>\n",
                HtmlText(run.tool_version), HtmlText(run.started_at));
  return out;
}

}  // namespace llmconform::reports
