#include "reports/html_reporter.h"

#include <cstdio>

#include "base/format.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

constexpr std::string_view kStyle = R"css(
:root {
  --bg: #f6f8fa; --fg: #1f2328; --muted: #656d76; --card: #ffffff; --line: #d0d7de;
  --code-bg: #f6f8fa;
  --pass: #1a7f37; --pass-bg: #dafbe1; --fail: #cf222e; --fail-bg: #ffebe9;
  --skip: #9a6700; --skip-bg: #fff8c5; --error: #8250df; --error-bg: #fbefff;
}
@media (prefers-color-scheme: dark) {
  :root {
    --bg: #0d1117; --fg: #e6edf3; --muted: #8d96a0; --card: #161b22; --line: #30363d;
    --code-bg: #0d1117;
    --pass: #3fb950; --pass-bg: #12261e; --fail: #f85149; --fail-bg: #2d1214;
    --skip: #d29922; --skip-bg: #272115; --error: #bc8cff; --error-bg: #231a33;
  }
}
* { box-sizing: border-box; }
body { margin: 0; background: var(--bg); color: var(--fg);
  font: 14px/1.5 -apple-system, BlinkMacSystemFont, "Segoe UI", "Noto Sans", Helvetica, Arial, sans-serif; }
code, pre { font-family: ui-monospace, SFMono-Regular, "SF Mono", Menlo, Consolas, "Liberation Mono", monospace;
  font-size: 12.5px; }
a { color: inherit; }
.page { max-width: 1180px; margin: 0 auto; padding: 24px 24px 48px; }
header.run { background: var(--card); border: 1px solid var(--line); border-radius: 10px; padding: 20px 24px; }
header.run h1 { margin: 0 0 4px; font-size: 22px; }
.meta { color: var(--muted); margin: 0; }
.verdict { display: inline-block; font-weight: 600; padding: 4px 12px; border-radius: 999px; margin-bottom: 10px; }
.cards { display: grid; grid-template-columns: repeat(auto-fit, minmax(260px, 1fr)); gap: 16px; margin: 18px 0; }
.card { border: 1px solid var(--line); border-radius: 8px; padding: 12px 16px; }
.card .num { font-size: 28px; font-weight: 600; margin-right: 6px; }
.card .what { color: var(--muted); }
.counts { display: flex; flex-wrap: wrap; gap: 6px 14px; margin-top: 8px; }
.bar { display: flex; height: 8px; border-radius: 4px; overflow: hidden; background: var(--line); margin-top: 8px; }
.bar span { display: block; height: 100%; }
.bar .pass { background: var(--pass); } .bar .fail { background: var(--fail); }
.bar .skip { background: var(--skip); } .bar .error { background: var(--error); }
table { border-collapse: collapse; width: 100%; }
.scroll { overflow-x: auto; }
th, td { text-align: left; padding: 6px 10px; border-bottom: 1px solid var(--line); vertical-align: top; }
th { color: var(--muted); font-weight: 600; font-size: 12px; text-transform: uppercase; letter-spacing: .03em; }
td.n, th.n { text-align: right; font-variant-numeric: tabular-nums; }
td.zero { color: var(--muted); opacity: .6; }
tr.total td { font-weight: 600; border-bottom: none; }
.summary thead tr:first-child th { border-bottom: none; padding-bottom: 0; }
.summary th.group { text-align: center; }
.summary th.group span { display: block; border-bottom: 1px solid var(--line); padding-bottom: 2px; }
.summary td.sep, .summary th.sep { border-left: 1px solid var(--line); }
.problems { margin: 16px 0 0; padding: 12px 16px; border-radius: 8px; background: var(--fail-bg); }
.problems h2 { font-size: 14px; margin: 0 0 6px; }
.problems ul { margin: 0; padding: 0; list-style: none; }
.problems li { margin: 4px 0; }
section.protocol { margin-top: 28px; }
section.protocol > h2 { font-size: 18px; margin: 0 0 10px; display: flex; align-items: baseline; gap: 12px; }
section.protocol > h2 .tally { font-size: 13px; font-weight: normal; color: var(--muted); }
article.scenario { background: var(--card); border: 1px solid var(--line); border-left: 4px solid var(--line);
  border-radius: 8px; margin: 0 0 14px; padding: 12px 16px; }
article.scenario.pass { border-left-color: var(--pass); } article.scenario.fail { border-left-color: var(--fail); }
article.scenario.skip { border-left-color: var(--skip); } article.scenario.error { border-left-color: var(--error); }
article.scenario h3 { margin: 0; font-size: 15px; display: flex; align-items: center; gap: 10px; flex-wrap: wrap; }
article.scenario h3 .facts { font-size: 12.5px; font-weight: normal; color: var(--muted); margin-left: auto; }
.desc { margin: 4px 0 0; }
.files { margin: 4px 0 8px; color: var(--muted); font-size: 12.5px; }
.files code { background: var(--code-bg); border: 1px solid var(--line); border-radius: 4px; padding: 0 4px; }
table.checks td:first-child { width: 72px; }
table.checks td.rule { width: 32%; }
table.checks tr:last-child td { border-bottom: none; }
.rule-text { display: block; color: var(--muted); font-size: 12px; margin-top: 2px; }
.badge { display: inline-block; min-width: 52px; text-align: center; font-size: 11.5px; font-weight: 600;
  padding: 1px 8px; border-radius: 999px; text-transform: uppercase; letter-spacing: .04em; }
.pass-c { color: var(--pass); } .fail-c { color: var(--fail); } .skip-c { color: var(--skip); } .error-c { color: var(--error); }
.badge.pass, .verdict.pass { color: var(--pass); background: var(--pass-bg); }
.badge.fail, .verdict.fail { color: var(--fail); background: var(--fail-bg); }
.badge.skip { color: var(--skip); background: var(--skip-bg); }
.badge.error, .verdict.error { color: var(--error); background: var(--error-bg); }
tr.has-evidence td { border-bottom: none; }
tr.evidence-row td { padding-top: 0; }
details summary { cursor: pointer; color: var(--muted); font-size: 12.5px; margin-bottom: 6px; }
details summary code { color: var(--fg); background: var(--code-bg); border: 1px solid var(--line);
  border-radius: 4px; padding: 0 4px; }
.tag { display: inline-block; margin-left: 4px; padding: 0 6px; border-radius: 999px; background: var(--code-bg);
  border: 1px solid var(--line); font-size: 11.5px; }
.evidence { display: grid; grid-template-columns: minmax(0, 1fr) minmax(0, 1fr); gap: 12px; }
.evidence h4 { margin: 0 0 4px; font-size: 11.5px; text-transform: uppercase; letter-spacing: .04em; color: var(--muted); }
.evidence pre { margin: 0; padding: 8px 10px; border-radius: 6px; white-space: pre-wrap; word-break: break-word;
  border: 1px solid var(--line); background: var(--code-bg); max-height: 360px; overflow: auto; }
.evidence .expected pre { border-left: 3px solid var(--pass); }
.evidence .actual pre { border-left: 3px solid var(--fail); }
.empty { color: var(--muted); font-style: italic; }
footer { margin-top: 32px; color: var(--muted); font-size: 12px; text-align: center; }
@media (max-width: 720px) { .evidence { grid-template-columns: 1fr; } article.scenario h3 .facts { margin-left: 0; } }
)css";

// Text from a result, safe in HTML text and attribute values.

std::string Badge(Outcome o) {
  return Format("<span class=\"badge {}\">{}</span>", OutcomeName(o), OutcomeName(o));
}

std::string Percent(int n, int total) {
  char buf[16];
  std::snprintf(buf, sizeof buf, "%.2f%%", total > 0 ? 100.0 * n / total : 0.0);
  return buf;
}

}  // namespace

std::string_view HtmlReportStyle() { return kStyle; }

std::string HtmlTotalsCard(std::string_view what, const Totals& t) {
  std::string bar, counts;
  for (Outcome o : kOutcomes) {
    const std::string_view name = OutcomeName(o);
    if (t.Of(o) > 0) {
      bar += Format("<span class=\"{}\" style=\"width:{}\" title=\"{} {}\"></span>", name,
                    Percent(t.Of(o), t.Total()), t.Of(o), name);
    }
    counts += Format("<span class=\"{}-c\"><b>{}</b> {}</span>", name, t.Of(o), name);
  }
  return Format(
      "<div class=\"card\"><span class=\"num\">{}</span><span class=\"what\">{}</span>"
      "<div class=\"bar\">{}</div><div class=\"counts\">{}</div></div>\n",
      t.Total(), what, bar, counts);
}

namespace {

// The cells "total pass fail skip error"; the checks group (`sep`) is set
// off from the scenarios group by a rule.
std::string CountCells(const Totals& t, bool sep) {
  std::string out = Format("<td class=\"n{}\">{}</td>", sep ? " sep" : "", t.Total());
  for (Outcome o : kOutcomes) {
    const int n = t.Of(o);
    out += n == 0 ? "<td class=\"n zero\">0</td>"
                  : Format("<td class=\"n {}-c\">{}</td>", OutcomeName(o), n);
  }
  return out;
}

std::string HtmlSummaryTable(const RunResult& run) {
  std::string head;
  for (bool sep : {false, true}) {
    head += Format("<th class=\"n{}\">total</th>", sep ? " sep" : "");
    for (Outcome o : kOutcomes) head += Format("<th class=\"n\">{}</th>", OutcomeName(o));
  }
  std::string out =
      "<div class=\"scroll\"><table class=\"summary\">\n<thead><tr><th></th>"
      "<th class=\"group\" colspan=\"5\"><span>scenarios</span></th>"
      "<th class=\"group sep\" colspan=\"5\"><span>checks</span></th></tr>\n<tr><th>protocol</th>" +
      head + "</tr></thead>\n<tbody>\n";
  const std::vector<ProtocolTotals> protocols = run.TotalsByProtocol();
  for (std::size_t i = 0; i < protocols.size(); ++i) {
    out += Format("<tr><td><a href=\"#p{}\">{}</a></td>{}{}</tr>\n", i + 1,
                  HtmlText(protocols[i].protocol), CountCells(protocols[i].scenarios, false),
                  CountCells(protocols[i].checks, true));
  }
  out += Format("<tr class=\"total\"><td>total</td>{}{}</tr>\n</tbody>\n</table></div>\n",
                CountCells(run.ScenarioTotals(), false), CountCells(run.CheckTotals(), true));
  return out;
}

// Links to each scenario that failed or erred; "" when there is none.
std::string ProblemList(const RunResult& run) {
  std::string items;
  for (std::size_t i = 0; i < run.scenarios.size(); ++i) {
    const ScenarioResult& s = run.scenarios[i];
    const Totals t = s.CheckTotals();
    if (t.fail == 0 && t.error == 0) continue;
    std::string what;
    if (t.fail > 0) what += Format("{} failing", t.fail);
    if (t.error > 0) what += Format("{}{} erring", what.empty() ? "" : ", ", t.error);
    items += Format("<li>{} <a href=\"#s{}\"><code>{}</code></a> — {} check{}</li>\n",
                    Badge(s.Overall()), i + 1, HtmlText(s.info.Id()), what,
                    t.fail + t.error == 1 ? "" : "s");
  }
  if (items.empty()) return "";
  return "<div class=\"problems\"><h2>Failures and errors</h2>\n<ul>\n" + items + "</ul></div>\n";
}

// Links to each scenario with expected failures (--expected-failures), and
// their reasons; "" when there is none.
std::string ExpectedFailureList(const RunResult& run) {
  std::string items;
  for (std::size_t i = 0; i < run.scenarios.size(); ++i) {
    for (const CheckResult& c : run.scenarios[i].checks) {
      if (c.expected_failure.empty()) continue;
      items += Format("<li><a href=\"#s{}\"><code>{}</code></a> · <code>{}</code> — {}</li>\n",
                      i + 1, HtmlText(run.scenarios[i].info.Id()), HtmlText(c.rule),
                      HtmlText(c.expected_failure));
    }
  }
  if (items.empty()) return "";
  return "<div class=\"problems\"><h2>Expected failures</h2>\n<ul>\n" + items + "</ul></div>\n";
}

std::string Pre(std::string_view text) {
  if (text.empty()) return "<pre><span class=\"empty\">(empty)</span></pre>";
  return Format("<pre>{}</pre>", HtmlText(text));
}

// A check's row; a failure's evidence follows in a row of its own across the
// whole table, so that expected and actual have room side by side.
std::string CheckRows(const RunResult& run, const ScenarioResult& s, const CheckResult& c) {
  std::string rule = Format("<code>{}</code>", HtmlText(c.rule));
  if (const RuleInfo* info = run.FindRule(s.info.protocol, c.rule)) {
    rule += Format("<span class=\"rule-text\" title=\"{}\">{} · {}</span>", HtmlText(info->source),
                   HtmlText(info->severity), HtmlText(info->text));
  }
  std::string out =
      Format("<tr class=\"{}{}\"><td>{}</td><td class=\"rule\">{}</td><td>{}</td></tr>\n",
             OutcomeName(c.outcome), c.evidence ? " has-evidence" : "",
             c.expected_failure.empty() ? Badge(c.outcome)
                                        : "<span class=\"badge skip\">expected failure</span>",
             rule, HtmlText(c.message));
  if (c.evidence) {
    out += Format(
        "<tr class=\"evidence-row\"><td></td><td colspan=\"2\">"
        "<details open><summary>evidence at <code>{}</code></summary>\n"
        "<div class=\"evidence\"><div class=\"expected\"><h4>expected</h4>{}</div>"
        "<div class=\"actual\"><h4>actual</h4>{}</div></div>\n</details></td></tr>\n",
        HtmlText(c.evidence->where), Pre(c.evidence->expected), Pre(c.evidence->actual));
  }
  return out;
}

std::string ScenarioBlock(const RunResult& run, const ScenarioResult& s, std::size_t index) {
  const Outcome o = s.Overall();
  std::string facts;
  if (!s.info.provider.empty()) facts += HtmlText(s.info.provider) + " · ";
  facts += HumanDuration(s.duration_ms);
  std::string out = Format(
      "<article class=\"scenario {}\" id=\"s{}\">\n"
      "<h3>{} <code>{}</code><span class=\"facts\">{}</span></h3>\n",
      OutcomeName(o), index + 1, Badge(o), HtmlText(s.info.name), facts);
  if (!s.info.description.empty()) {
    out += Format("<p class=\"desc\">{}</p>\n", HtmlText(s.info.description));
  }
  std::string files;
  if (!s.info.file.empty()) files += Format("scenario <code>{}</code>", HtmlText(s.info.file));
  if (!s.info.trace.empty()) {
    files += Format("{}trace <code>{}</code>", files.empty() ? "" : " · ", HtmlText(s.info.trace));
  }
  for (const std::string& tag : s.info.tags) {
    files += Format(" <span class=\"tag\">#{}</span>", HtmlText(tag));
  }
  if (!files.empty()) out += Format("<p class=\"files\">{}</p>\n", files);
  if (s.checks.empty()) return out + "<p class=\"empty\">No checks ran.</p>\n</article>\n";
  out += "<table class=\"checks\">\n";
  out += "<thead><tr><th>outcome</th><th>rule</th><th>message</th></tr></thead>\n<tbody>\n";
  for (const CheckResult& c : s.checks) out += CheckRows(run, s, c);
  return out + "</tbody>\n</table>\n</article>\n";
}

// The run's verdict: its CSS class and its words.
std::pair<std::string_view, std::string_view> HtmlVerdict(const RunResult& run) {
  switch (run.ExitCode()) {
    case kExitOk:
      return {"pass", "Conformant"};
    case kExitFail:
      return {"fail", "Not conformant"};
    default:
      return {"error", "The harness failed on some checks"};
  }
}

}  // namespace

std::string RenderHtml(const RunResult& run) {
  const auto [verdict_class, verdict] = HtmlVerdict(run);
  std::string out = Format(
      "<!DOCTYPE html>\n<html lang=\"en\">\n<head>\n<meta charset=\"utf-8\">\n"
      "<meta name=\"viewport\" content=\"width=device-width, initial-scale=1\">\n"
      "<title>llmconform report: {}</title>\n<style>{}</style>\n</head>\n",
      verdict, kStyle);
  out += "<body>\n<div class=\"page\">\n<header class=\"run\">\n";
  out += Format("<div class=\"verdict {}\">{}</div>\n", verdict_class, verdict);
  out += "<h1>llmconform conformance report</h1>\n";
  out +=
      Format("<p class=\"meta\">llmconform {} · started {} · took {}</p>\n",
             HtmlText(run.tool_version), HtmlText(run.started_at), HumanDuration(run.duration_ms));
  out += "<div class=\"cards\">\n" + HtmlTotalsCard("scenarios", run.ScenarioTotals()) +
         HtmlTotalsCard("checks", run.CheckTotals()) + "</div>\n";
  out +=
      HtmlSummaryTable(run) + ProblemList(run) + ExpectedFailureList(run) + "</header>\n<main>\n";
  const std::vector<ProtocolTotals> protocols = run.TotalsByProtocol();
  for (std::size_t i = 0; i < protocols.size(); ++i) {
    const ProtocolTotals& p = protocols[i];
    out += Format("<section class=\"protocol\" id=\"p{}\">\n", i + 1);
    out += Format("<h2>{} <span class=\"tally\">{} scenarios · {} checks", HtmlText(p.protocol),
                  p.scenarios.Total(), p.checks.Total());
    for (Outcome o : kOutcomes) {
      if (p.checks.Of(o) > 0) out += Format(" · {} {}", p.checks.Of(o), OutcomeName(o));
    }
    out += "</span></h2>\n";
    for (std::size_t j = 0; j < run.scenarios.size(); ++j) {
      if (run.scenarios[j].info.protocol == p.protocol) {
        out += ScenarioBlock(run, run.scenarios[j], j);
      }
    }
    out += "</section>\n";
  }
  out += Format("</main>\n<footer>llmconform {} · {}</footer>\n</div>\n</body>\n</html>\n",
                HtmlText(run.tool_version), HtmlText(run.started_at));
  return out;
}

}  // namespace llmconform::reports
