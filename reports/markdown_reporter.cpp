#include "reports/markdown_reporter.h"

#include "base/format.h"
#include "reports/markdown.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

std::string Verdict(const RunResult& run) {
  switch (run.ExitCode()) {
    case kExitOk:
      return Format("{} **conformant**", OutcomeEmoji(Outcome::kPass));
    case kExitFail:
      return Format("{} **not conformant**", OutcomeEmoji(Outcome::kFail));
    default:
      return Format("{} **the harness failed on some checks**", OutcomeEmoji(Outcome::kError));
  }
}

// "2 pass, 1 fail": the non-zero counts, in outcome order; "none" for none.
std::string Breakdown(const Totals& t) {
  std::string out;
  for (Outcome o : kOutcomes) {
    if (t.Of(o) == 0) continue;
    out += Format("{}{} {}", out.empty() ? "" : ", ", t.Of(o), OutcomeName(o));
  }
  return out.empty() ? "none" : out;
}

std::string SummaryTable(const RunResult& run) {
  std::vector<std::string> header = {"protocol", "scenarios"};
  for (Outcome o : kOutcomes) header.push_back(std::string(OutcomeName(o)));
  header.push_back("checks");
  for (Outcome o : kOutcomes) header.push_back(std::string(OutcomeName(o)));
  std::vector<Align> align(header.size(), Align::kRight);
  align[0] = Align::kLeft;

  const auto row = [](std::string first, const Totals& scenarios, const Totals& checks, bool bold) {
    const auto cell = [bold](int n) { return bold ? Format("**{}**", n) : std::to_string(n); };
    std::vector<std::string> r = {std::move(first), cell(scenarios.Total())};
    for (Outcome o : kOutcomes) r.push_back(cell(scenarios.Of(o)));
    r.push_back(cell(checks.Total()));
    for (Outcome o : kOutcomes) r.push_back(cell(checks.Of(o)));
    return r;
  };
  std::vector<std::vector<std::string>> rows;
  for (const ProtocolTotals& p : run.TotalsByProtocol()) {
    rows.push_back(row(MarkdownText(p.protocol), p.scenarios, p.checks, false));
  }
  rows.push_back(row("**total**", run.ScenarioTotals(), run.CheckTotals(), true));
  return MarkdownTable(header, align, rows);
}

std::string ProtocolTable(const RunResult& run, const std::string& protocol) {
  std::vector<std::vector<std::string>> rows;
  for (const ScenarioResult& s : run.scenarios) {
    if (s.info.protocol != protocol) continue;
    std::string name = MarkdownCode(s.info.name);
    if (!s.info.description.empty()) name += "<br>" + MarkdownText(s.info.description);
    rows.push_back({std::move(name), s.info.provider.empty() ? "—" : MarkdownText(s.info.provider),
                    MarkdownOutcome(s.Overall()), Breakdown(s.CheckTotals()),
                    HumanDuration(s.duration_ms)});
  }
  return MarkdownTable({"scenario", "provider", "outcome", "checks", "time"},
                       {Align::kLeft, Align::kLeft, Align::kLeft, Align::kLeft, Align::kRight},
                       rows);
}

std::string Failure(const RunResult& run, const ScenarioResult& s, const CheckResult& c) {
  std::string out = Format("### {} {} · {}\n\n", MarkdownOutcome(c.outcome),
                           MarkdownCode(s.info.Id()), MarkdownCode(c.rule));
  out += MarkdownText(c.message, /*at_line_start=*/true) + "\n\n";
  if (const RuleInfo* rule = run.FindRule(s.info.protocol, c.rule)) {
    out += Format("> **{}** · {} — {}\n\n", MarkdownText(rule->severity),
                  MarkdownText(rule->source), MarkdownText(rule->text));
  }
  if (c.evidence) out += Format("- where: {}\n", MarkdownCode(c.evidence->where));
  if (!s.info.file.empty()) out += Format("- scenario: {}\n", MarkdownCode(s.info.file));
  if (!s.info.trace.empty()) out += Format("- trace: {}\n", MarkdownCode(s.info.trace));
  if (!s.info.provider.empty()) out += Format("- provider: {}\n", MarkdownText(s.info.provider));
  if (c.evidence) {
    out += "\nexpected:\n\n" + MarkdownFence(c.evidence->expected, "text");
    out += "\nactual:\n\n" + MarkdownFence(c.evidence->actual, "text");
  }
  return out + "\n";
}

}  // namespace

std::string RenderMarkdown(const RunResult& run) {
  const Totals scenarios = run.ScenarioTotals(), checks = run.CheckTotals();
  std::string out = "# llmconform conformance report\n\n";
  out += Format("{} — {} scenarios ({}), {} checks ({})", Verdict(run), scenarios.Total(),
                Breakdown(scenarios), checks.Total(), Breakdown(checks));
  if (const int expected = run.ExpectedFailures(); expected > 0)
    out += Format(", {} of the skipped expected failures", expected);
  out += "\n\n";
  out += Format("llmconform {} · started {} · took {}\n\n", MarkdownText(run.tool_version),
                MarkdownText(run.started_at), HumanDuration(run.duration_ms));
  out += "## Summary\n\n" + SummaryTable(run) + "\n";
  for (const ProtocolTotals& p : run.TotalsByProtocol()) {
    out += Format("## {}\n\n", MarkdownText(p.protocol)) + ProtocolTable(run, p.protocol) + "\n";
  }
  out += "## Failures and errors\n\n";
  bool any = false;
  for (const ScenarioResult& s : run.scenarios) {
    for (const CheckResult& c : s.checks) {
      if (c.outcome != Outcome::kFail && c.outcome != Outcome::kError) continue;
      out += Failure(run, s, c);
      any = true;
    }
  }
  if (!any) out += "None.\n";
  if (run.ExpectedFailures() > 0) {
    // --expected-failures: failures the baseline expects, apart from the others.
    out += "\n## Expected failures\n\n";
    std::vector<std::vector<std::string>> rows;
    for (const ScenarioResult& s : run.scenarios) {
      for (const CheckResult& c : s.checks) {
        if (c.expected_failure.empty()) continue;
        rows.push_back(
            {MarkdownCode(s.info.Id()), MarkdownCode(c.rule), MarkdownText(c.expected_failure)});
      }
    }
    out += MarkdownTable({"scenario", "rule", "reason"}, {Align::kLeft, Align::kLeft, Align::kLeft},
                         rows);
  }
  while (out.ends_with("\n\n")) out.pop_back();
  return out;
}

}  // namespace llmconform::reports
