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

// Whether any of a client's scenarios ran (was not wholly skipped) in a cell.
bool Ran(const std::optional<MatrixCell>& cell) { return cell && cell->run > 0; }

// One table of the summary: the dialects of one surface (indices into
// Summary::dialects) and the clients that ran in any of them (into clients).
struct SurfaceTable {
  std::string surface;  // "" for the dialects `surfaces` does not name
  std::vector<std::size_t> dialects;
  std::vector<std::size_t> clients;
};

constexpr std::pair<std::string_view, std::string_view> kSurfaceTitles[] = {
    {"chat", "Chat Completions"},
    {"responses", "Responses API"},
    {"messages", "Anthropic Messages"},
    {"gemini", "Gemini API"}};

// Sort key of a surface: the known ones in kSurfaceTitles' order, others by
// name, "" last.
std::pair<std::size_t, std::string> SurfaceRank(const std::string& surface) {
  constexpr std::size_t kKnown = std::size(kSurfaceTitles);
  for (std::size_t i = 0; i < kKnown; ++i)
    if (kSurfaceTitles[i].first == surface) return {i, ""};
  return {surface.empty() ? kKnown + 1 : kKnown, surface};
}

std::string SurfaceTitle(const std::string& surface) {
  for (const auto& [name, title] : kSurfaceTitles)
    if (name == surface) return Format("{} (`{}`)", title, name);
  return surface.empty() ? "Other dialects" : Format("`{}`", surface);
}

std::vector<SurfaceTable> SurfaceTables(const Summary& sum, const DialectSurfaces& surfaces) {
  std::vector<SurfaceTable> out;
  for (std::size_t d = 0; d < sum.dialects.size(); ++d) {
    const auto it = surfaces.find(sum.dialects[d]);
    const std::string surface = it == surfaces.end() ? "" : it->second;
    auto table = std::find_if(out.begin(), out.end(),
                              [&](const SurfaceTable& t) { return t.surface == surface; });
    if (table == out.end()) table = out.insert(out.end(), SurfaceTable{surface, {}, {}});
    table->dialects.push_back(d);
  }
  std::sort(out.begin(), out.end(), [](const SurfaceTable& a, const SurfaceTable& b) {
    return SurfaceRank(a.surface) < SurfaceRank(b.surface);
  });
  for (SurfaceTable& t : out)
    for (std::size_t c = 0; c < sum.rows.size(); ++c)
      if (std::any_of(t.dialects.begin(), t.dialects.end(),
                      [&](std::size_t d) { return Ran(sum.rows[c][d]); }))
        t.clients.push_back(c);
  return out;
}

// What the page leaves out for one client: the surfaces none of its scenarios
// ran in, and why (the distinct messages of the skipped checks that say
// "unsupported: …", without that word, else of all its skipped checks there).
struct NotRun {
  std::vector<std::string> surfaces;
  std::vector<std::string> reasons;
};

NotRun NotRunOf(const ClientRun& c, std::size_t client, const Summary& sum,
                std::span<const SurfaceTable> tables) {
  NotRun out;
  std::vector<std::string> unsupported, other;
  const auto add = [](std::vector<std::string>& to, const std::string& m) {
    if (std::find(to.begin(), to.end(), m) == to.end()) to.push_back(m);
  };
  for (const SurfaceTable& t : tables) {
    if (std::find(t.clients.begin(), t.clients.end(), client) != t.clients.end()) continue;
    out.surfaces.push_back(t.surface.empty() ? "other dialects" : t.surface);
    constexpr std::string_view kUnsupported = "unsupported: ";
    for (const std::size_t d : t.dialects)
      for (const ScenarioResult& s : c.run.scenarios) {
        if (s.info.dialect != sum.dialects[d]) continue;
        for (const CheckResult& check : s.checks) {
          if (check.message.starts_with(kUnsupported))
            add(unsupported, check.message.substr(kUnsupported.size()));
          else
            add(other, check.message);
        }
      }
  }
  out.reasons = unsupported.empty() ? other : unsupported;
  return out;
}

// `m` without the dialects where none of the client's scenarios ran, then
// without the features no remaining dialect has a scenario of.
Matrix RunRowsOnly(Matrix m) {
  for (std::size_t r = m.providers.size(); r-- > 0;) {
    if (std::any_of(m.cells[r].begin(), m.cells[r].end(), Ran)) continue;
    m.providers.erase(m.providers.begin() + static_cast<std::ptrdiff_t>(r));
    m.cells.erase(m.cells.begin() + static_cast<std::ptrdiff_t>(r));
  }
  for (std::size_t f = m.features.size(); f-- > 0;) {
    if (std::any_of(m.cells.begin(), m.cells.end(), [&](const auto& row) { return row[f]; }))
      continue;
    m.features.erase(m.features.begin() + static_cast<std::ptrdiff_t>(f));
    for (auto& row : m.cells) row.erase(row.begin() + static_cast<std::ptrdiff_t>(f));
  }
  return m;
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

constexpr std::string_view kNotRunIntro =
    "Not run: a client none of whose scenarios ran in a surface's dialects (each one skipped, "
    "with the reason below) has no row in that surface's table and no row for those dialects "
    "in its grid.";

// The heading of a summary table: none when the page has one table of unnamed dialects.
bool Titled(std::span<const SurfaceTable> tables) {
  return tables.size() > 1 || (tables.size() == 1 && !tables[0].surface.empty());
}

std::string MarkdownSummary(std::span<const ClientRun> clients, const Summary& sum,
                            std::span<const SurfaceTable> tables) {
  std::string out;
  for (const SurfaceTable& t : tables) {
    if (Titled(tables)) out += Format("### {}\n\n", SurfaceTitle(t.surface));
    if (t.clients.empty()) {
      out += "No client ran a scenario in these dialects.\n\n";
      continue;
    }
    std::vector<std::string> header = {"client"};
    for (const std::size_t d : t.dialects) header.push_back(MarkdownText(sum.dialects[d]));
    std::vector<std::vector<std::string>> rows;
    for (const std::size_t c : t.clients) {
      std::vector<std::string> row = {MarkdownText(clients[c].name)};
      for (const std::size_t d : t.dialects) {
        const auto& cell = sum.rows[c][d];
        row.push_back(cell ? Format("{} {}", OutcomeEmoji(cell->outcome), cell->Label()) : "—");
      }
      rows.push_back(std::move(row));
    }
    out += MarkdownTable(header, {}, rows) + "\n";
  }
  return out;
}

// The note's items, `item(client, surfaces, reasons)` for each client that
// has surfaces left out (surfaces joined by ", ", reasons by "; ").
template <typename Item>
std::string NotRunItems(std::span<const ClientRun> clients, const Summary& sum,
                        std::span<const SurfaceTable> tables, Item item) {
  std::string out;
  for (std::size_t c = 0; c < clients.size(); ++c) {
    const NotRun n = NotRunOf(clients[c], c, sum, tables);
    if (!n.surfaces.empty())
      out += item(clients[c].name, Joined(n.surfaces, ", "), Joined(n.reasons, "; "));
  }
  return out;
}

std::string MarkdownNotRun(std::span<const ClientRun> clients, const Summary& sum,
                           std::span<const SurfaceTable> tables) {
  const std::string items = NotRunItems(
      clients, sum, tables,
      [](const std::string& name, const std::string& surfaces, const std::string& reasons) {
        return Format("- {}: {}{}\n", MarkdownCode(name), MarkdownText(surfaces),
                      reasons.empty() ? "" : " — " + MarkdownText(reasons));
      });
  return items.empty() ? "" : Format("\n{}\n\n{}", kNotRunIntro, items);
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

std::string RenderCompatMarkdown(std::span<const ClientRun> clients,
                                 const DialectSurfaces& surfaces) {
  const Summary sum = BuildSummary(clients);
  std::string out = "# SDK × provider compatibility\n\n" + std::string(kIntro) + "\n\n";
  const auto tables = SurfaceTables(sum, surfaces);
  out += "## Summary\n\n" + MarkdownSummary(clients, sum, tables);
  out +=
      "A cell: the worst outcome of the client's scenarios in that dialect, then scenarios "
      "passed / scenarios run (skipped ones not counted); — not run.\n";
  out += MarkdownNotRun(clients, sum, tables);
  for (const ClientRun& c : clients) {
    out += Format("\n## {}\n\n`{}`\n\n", MarkdownText(c.name, true), MarkdownText(c.command));
    const Matrix m = RunRowsOnly(BuildMatrix(c.run));
    out += m.providers.empty() ? "No scenario ran in a dialect.\n" : MatrixMarkdownTable(m);
    out += "\n" + MarkdownFailures(c);
  }
  out += "\n" + std::string(kCellLegend) +
         " A failure names the deviations of its dialect that changed the replies; `sent` is "
         "what mockllm sent, `read` what the client wrote to LLMCONFORM_OUTPUT.\n";
  return out;
}

namespace {

std::string HtmlSummary(std::span<const ClientRun> clients, const Summary& sum,
                        std::span<const SurfaceTable> tables) {
  std::string out;
  for (const SurfaceTable& t : tables) {
    if (Titled(tables)) {
      const auto title = std::find_if(std::begin(kSurfaceTitles), std::end(kSurfaceTitles),
                                      [&](const auto& k) { return k.first == t.surface; });
      out +=
          title != std::end(kSurfaceTitles)
              ? Format("<h3>{} (<code>{}</code>)</h3>\n", HtmlText(title->second),
                       HtmlText(t.surface))
              : Format("<h3>{}</h3>\n", t.surface.empty() ? "Other dialects" : HtmlText(t.surface));
    }
    if (t.clients.empty()) {
      out += "<p class=\"legend\">No client ran a scenario in these dialects.</p>\n";
      continue;
    }
    out += "<div class=\"scroll\"><table class=\"matrix summary\">\n<thead><tr><th>client</th>";
    for (const std::size_t d : t.dialects)
      out += Format("<th class=\"feature\">{}</th>", HtmlText(sum.dialects[d]));
    out += "</tr></thead>\n<tbody>\n";
    for (const std::size_t c : t.clients) {
      out += Format("<tr><td><a href=\"#client-{0}\">{0}</a></td>", HtmlText(clients[c].name));
      for (const std::size_t d : t.dialects) {
        const auto& cell = sum.rows[c][d];
        out += Format("<td class=\"cell {}\" data-client=\"{}\" data-dialect=\"{}\">{}</td>",
                      cell ? OutcomeName(cell->outcome) : "none", HtmlText(clients[c].name),
                      HtmlText(sum.dialects[d]), cell ? HtmlText(cell->Label()) : "—");
      }
      out += "</tr>\n";
    }
    out += "</tbody>\n</table></div>\n";
  }
  return out;
}

std::string HtmlNotRun(std::span<const ClientRun> clients, const Summary& sum,
                       std::span<const SurfaceTable> tables) {
  const std::string items = NotRunItems(
      clients, sum, tables,
      [](const std::string& name, const std::string& surfaces, const std::string& reasons) {
        return Format("<li><code>{}</code>: {}{}</li>\n", HtmlText(name), HtmlText(surfaces),
                      reasons.empty() ? "" : " — " + HtmlText(reasons));
      });
  return items.empty() ? ""
                       : Format("<p class=\"legend\">{}</p>\n<ul class=\"legend\">\n{}</ul>\n",
                                HtmlText(kNotRunIntro), items);
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
    for (const std::string& d : f.deviations) devs += Format("<code>{}</code> ", HtmlText(d));
    out += Format(
        "<tr><td>{}</td><td>{}</td><td><code>{}</code></td><td>{}</td><td><code>{}</code></td>"
        "<td>{}</td><td><a href=\"{}sent.txt\">sent</a> · <a href=\"{}read.json\">read</a> · "
        "<a href=\"{}\">report</a></td></tr>\n",
        HtmlText(f.dialect), HtmlText(f.scenario), HtmlText(f.check->rule),
        HtmlText(f.check->message), HtmlText(ReadByClient(*f.check)), devs, HtmlText(f.evidence),
        HtmlText(f.evidence), HtmlText(f.report));
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

std::string RenderCompatHtml(std::span<const ClientRun> clients, const DialectSurfaces& surfaces) {
  const Summary sum = BuildSummary(clients);
  const auto tables = SurfaceTables(sum, surfaces);
  std::string out = Format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>llmconform SDK × provider compatibility</title>\n<style>{}{}{}</style>\n</head>\n",
      HtmlReportStyle(), MatrixHtmlStyle(), kCompatStyle);
  out += "<body>\n<div class=\"page\">\n<header class=\"run\">\n";
  out += "<h1>SDK × provider compatibility</h1>\n";
  out += Format("<p class=\"legend\">{}</p>\n", HtmlText(kIntro));
  out += HtmlSummary(clients, sum, tables);
  out += Format("<p class=\"legend\">{}</p>\n", HtmlText(kCellLegend));
  out += HtmlNotRun(clients, sum, tables) + "</header>\n";
  for (const ClientRun& c : clients) {
    out += Format(
        "<section id=\"client-{0}\">\n<h2 class=\"client\">{0}</h2>\n<p><code>{1}</code> · "
        "<a href=\"{0}/report.html\">report</a></p>\n",
        HtmlText(c.name), HtmlText(c.command));
    const Matrix m = RunRowsOnly(BuildMatrix(c.run));
    out += m.providers.empty() ? "<p>No scenario ran in a dialect.</p>\n"
                               : MatrixHtmlTable(m, c.name + "/");
    out += HtmlFailures(c) + "</section>\n";
  }
  out += "</div>\n</body>\n</html>\n";
  return out;
}

}  // namespace llmconform::reports
