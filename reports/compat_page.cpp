#include "reports/compat_page.h"

#include <algorithm>
#include <optional>
#include <vector>

#include "base/format.h"
#include "reports/html_reporter.h"
#include "reports/markdown.h"
#include "reports/matrix_html_reporter.h"
#include "reports/matrix_reporter.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

// The summary: one row a client, one column a dialect (every dialect any
// client ran in, sorted); nullopt where the client did not run in it.
struct Summary {
  std::vector<std::string> dialects;
  std::vector<std::vector<std::optional<MatrixCell>>> rows;
};

Summary BuildSummary(std::span<const ClientRun> clients) {
  Summary out;
  for (const ClientRun& c : clients)
    for (const ScenarioResult& s : c.run.scenarios)
      if (!s.info.dialect.empty() &&
          std::find(out.dialects.begin(), out.dialects.end(), s.info.dialect) == out.dialects.end())
        out.dialects.push_back(s.info.dialect);
  std::sort(out.dialects.begin(), out.dialects.end());
  for (const ClientRun& c : clients) {
    auto& row = out.rows.emplace_back(out.dialects.size());
    for (std::size_t i = 0; i < c.run.scenarios.size(); ++i) {
      const ScenarioResult& s = c.run.scenarios[i];
      const auto at = std::find(out.dialects.begin(), out.dialects.end(), s.info.dialect);
      if (at == out.dialects.end()) continue;
      auto& cell = row[static_cast<std::size_t>(at - out.dialects.begin())];
      if (!cell) cell = MatrixCell{};
      cell->Add(s, i);
    }
  }
  return out;
}

// One failed or erring check of one client, with where its evidence is.
struct FailureRow {
  std::string dialect;
  std::string scenario;  // its name
  const CheckResult* check = nullptr;
  std::vector<std::string> deviations;
  std::string report;    // "<client>/report.html#sN"
  std::string evidence;  // "<client>/evidence/<name>[@<dialect>]/"
};

std::vector<FailureRow> FailuresOf(const ClientRun& c) {
  std::vector<FailureRow> out;
  for (std::size_t i = 0; i < c.run.scenarios.size(); ++i) {
    const ScenarioResult& s = c.run.scenarios[i];
    for (const CheckResult& check : s.checks) {
      if (check.outcome != Outcome::kFail && check.outcome != Outcome::kError) continue;
      const std::string folder =
          s.info.dialect.empty() ? s.info.name : s.info.name + "@" + s.info.dialect;
      out.push_back({s.info.dialect, s.info.name, &check, s.info.deviations,
                     Format("{}/report.html#s{}", c.name, i + 1),
                     Format("{}/evidence/{}/", c.name, folder)});
    }
  }
  return out;
}

// What the client read, as the check's evidence has it ("" when it has none).
std::string ReadByClient(const CheckResult& check) {
  if (!check.evidence) return "";
  std::string read = check.evidence->actual;
  constexpr std::size_t kMax = 160;
  if (read.size() > kMax) read = ValidUtf8(read.substr(0, kMax)) + "…";
  return read;
}

std::string Joined(const std::vector<std::string>& items, std::string_view sep) {
  std::string out;
  for (const std::string& s : items) out += (out.empty() ? "" : std::string(sep)) + s;
  return out;
}

constexpr std::string_view kIntro =
    "Each client ran the client profile (specs/client/) in every dialect: mockllm replayed "
    "each scenario's recording rewritten into the dialect (with the scenario's fault), and what "
    "the client read was compared with the reference reading of the bytes mockllm sent.";

constexpr std::string_view kCellLegend =
    "A cell: the worst scenario outcome, then scenarios passed / scenarios run (skipped ones not "
    "counted); — not run.";

std::string MarkdownSummary(std::span<const ClientRun> clients, const Summary& sum) {
  std::vector<std::string> header = {"client"};
  for (const std::string& d : sum.dialects) header.push_back(MarkdownText(d));
  std::vector<std::vector<std::string>> rows;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    std::vector<std::string> row = {MarkdownText(clients[c].name)};
    for (const auto& cell : sum.rows[c])
      row.push_back(cell ? Format("{} {}", OutcomeEmoji(cell->outcome), cell->Label()) : "—");
    rows.push_back(std::move(row));
  }
  return MarkdownTable(header, {}, rows);
}

std::string MarkdownFailures(const ClientRun& c) {
  const auto failures = FailuresOf(c);
  if (failures.empty()) return "No failure.\n";
  std::vector<std::vector<std::string>> rows;
  for (const FailureRow& f : failures) {
    std::vector<std::string> devs;
    for (const std::string& d : f.deviations) devs.push_back(MarkdownCode(d));
    const std::string read = ReadByClient(*f.check);
    rows.push_back({MarkdownText(f.dialect), MarkdownText(f.scenario), MarkdownCode(f.check->rule),
                    MarkdownText(f.check->message), read.empty() ? "" : MarkdownCode(read),
                    Joined(devs, ", "),
                    Format("[sent]({0}sent.txt) · [read]({0}read.json) · [report]({1})", f.evidence,
                           f.report)});
  }
  return MarkdownTable(
      {"dialect", "scenario", "rule", "what happened", "the client read", "deviations", "evidence"},
      {}, rows);
}

}  // namespace

std::string RenderCompatMarkdown(std::span<const ClientRun> clients) {
  const Summary sum = BuildSummary(clients);
  std::string out = "# SDK × provider compatibility\n\n" + std::string(kIntro) + "\n\n";
  out += "## Summary\n\n" + MarkdownSummary(clients, sum);
  out +=
      "\nA cell: the worst outcome of the client's scenarios in that dialect, then scenarios "
      "passed / scenarios run (skipped ones not counted); — not run.\n";
  for (const ClientRun& c : clients) {
    out += Format("\n## {}\n\n`{}`\n\n", MarkdownText(c.name, true), MarkdownText(c.command));
    const Matrix m = BuildMatrix(c.run);
    out += m.providers.empty() ? "No scenario ran in a dialect.\n" : MatrixMarkdownTable(m);
    out += "\n" + MarkdownFailures(c);
  }
  out += "\n" + std::string(kCellLegend) +
         " A failure names the deviations of its dialect that changed the replies; `sent` is "
         "what mockllm sent, `read` what the client wrote to LLMCONFORM_OUTPUT.\n";
  return out;
}

namespace {

std::string H(std::string_view text) { return HtmlEscape(ReadableText(text)); }

std::string HtmlSummary(std::span<const ClientRun> clients, const Summary& sum) {
  std::string out =
      "<div class=\"scroll\"><table class=\"matrix summary\">\n<thead><tr><th>client</th>";
  for (const std::string& d : sum.dialects) out += Format("<th class=\"feature\">{}</th>", H(d));
  out += "</tr></thead>\n<tbody>\n";
  for (std::size_t c = 0; c < clients.size(); ++c) {
    out += Format("<tr><td><a href=\"#client-{0}\">{0}</a></td>", H(clients[c].name));
    for (std::size_t d = 0; d < sum.dialects.size(); ++d) {
      const auto& cell = sum.rows[c][d];
      out += Format("<td class=\"cell {}\" data-client=\"{}\" data-dialect=\"{}\">{}</td>",
                    cell ? OutcomeName(cell->outcome) : "none", H(clients[c].name),
                    H(sum.dialects[d]), cell ? H(cell->Label()) : "—");
    }
    out += "</tr>\n";
  }
  return out + "</tbody>\n</table></div>\n";
}

std::string HtmlFailures(const ClientRun& c) {
  const auto failures = FailuresOf(c);
  if (failures.empty()) return "<p class=\"legend\">No failure.</p>\n";
  std::string out =
      "<table class=\"failures\">\n<thead><tr><th>dialect</th><th>scenario</th><th>rule</th>"
      "<th>what happened</th><th>the client read</th><th>deviations</th><th>evidence</th></tr>"
      "</thead>\n<tbody>\n";
  for (const FailureRow& f : failures) {
    std::string devs;
    for (const std::string& d : f.deviations) devs += Format("<code>{}</code> ", H(d));
    out += Format(
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td>"
        "<td>{}</td><td><a href=\"{}sent.txt\">sent</a> · <a href=\"{}read.json\">read</a> · "
        "<a href=\"{}\">report</a></td></tr>\n",
        H(f.dialect), H(f.scenario), H(f.check->rule), H(f.check->message),
        H(ReadByClient(*f.check)), devs, H(f.evidence), H(f.evidence), H(f.report));
  }
  return out + "</tbody>\n</table>\n";
}

constexpr std::string_view kCompatStyle = R"css(
table.failures { font-size: 13px; margin-top: 12px; }
table.failures td { vertical-align: top; }
table.failures td:nth-child(5) code { word-break: break-all; }
h2.client { margin-top: 32px; }
.page { max-width: 2100px; }
)css";

}  // namespace

std::string RenderCompatHtml(std::span<const ClientRun> clients) {
  const Summary sum = BuildSummary(clients);
  std::string out = Format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>llmconform SDK × provider compatibility</title>\n<style>{}{}{}</style>\n</head>\n",
      HtmlReportStyle(), MatrixHtmlStyle(), kCompatStyle);
  out += "<body>\n<div class=\"page\">\n<header class=\"run\">\n";
  out += "<h1>SDK × provider compatibility</h1>\n";
  out += Format("<p class=\"legend\">{}</p>\n", H(kIntro));
  out += HtmlSummary(clients, sum);
  out += Format("<p class=\"legend\">{}</p>\n</header>\n", H(kCellLegend));
  for (const ClientRun& c : clients) {
    out += Format(
        "<section id=\"client-{0}\">\n<h2 class=\"client\">{0}</h2>\n<p><code>{1}</code> · "
        "<a href=\"{0}/report.html\">report</a></p>\n",
        H(c.name), H(c.command));
    const Matrix m = BuildMatrix(c.run);
    out += m.providers.empty() ? "<p>No scenario ran in a dialect.</p>\n"
                               : MatrixHtmlTable(m, c.name + "/");
    out += HtmlFailures(c) + "</section>\n";
  }
  out += "</div>\n</body>\n</html>\n";
  return out;
}

}  // namespace llmconform::reports
