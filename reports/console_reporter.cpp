#include "reports/console_reporter.h"

#include <algorithm>
#include <cstdio>
#include <map>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/utf8.h"
#include "reports/text.h"

namespace llmconform::reports {
namespace {

// SGR parameters.
constexpr std::string_view kBold = "1";
constexpr std::string_view kDim = "2";
constexpr std::string_view kEraseLine = "\r\x1b[2K";
constexpr std::string_view kEllipsis = "\xE2\x80\xA6";  // …

std::string_view OutcomeSgr(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "32";
    case Outcome::kFail:
      return "1;31";
    case Outcome::kSkip:
      return "33";
    case Outcome::kError:
      return "1;35";
  }
  return "";
}

// Failures shout, so that they stand out in a long log.
std::string OutcomeLabel(Outcome o) {
  std::string label(OutcomeName(o));
  if (o == Outcome::kFail || o == Outcome::kError) {
    std::transform(label.begin(), label.end(), label.begin(), [](char c) { return c - 'a' + 'A'; });
  }
  return label;
}

std::string Plural(int n, std::string_view noun) {
  return Format("{} {}{}", n, noun, n == 1 ? "" : "s");
}

// Code points, as an estimate of terminal columns.
std::size_t Columns(std::string_view s) { return CountCodePoints(s); }

// `s` cut to at most `columns` code points, the cut marked with an ellipsis.
std::string Truncate(const std::string& s, std::size_t columns) {
  if (Columns(s) <= columns || columns == 0) return s;
  return s.substr(0, OffsetOfCodePoint(s, columns - 1)) + std::string(kEllipsis);
}

std::string PadLeft(const std::string& s, std::size_t width) {
  const std::size_t n = Columns(s);
  return n >= width ? s : std::string(width - n, ' ') + s;
}

std::string PadRight(const std::string& s, std::size_t width) {
  const std::size_t n = Columns(s);
  return n >= width ? s : s + std::string(width - n, ' ');
}

}  // namespace

ConsoleOptions ConsoleOptionsFor(bool is_terminal, const char* no_color_env, const char* ci_env,
                                 int width) {
  const auto set = [](const char* v) { return v != nullptr && *v != '\0'; };
  const bool live = is_terminal && !set(no_color_env) && !set(ci_env);
  return {.color = live, .tty = live, .width = live ? width : 0, .timing = live};
}

namespace {

std::string Clock(double ms) {
  const long long s = ms > 0 ? static_cast<long long>(ms / 1000) : 0;
  char buf[48];
  if (s >= 3600) {
    std::snprintf(buf, sizeof buf, "%lld:%02lld:%02lld", s / 3600, s / 60 % 60, s % 60);
  } else {
    std::snprintf(buf, sizeof buf, "%lld:%02lld", s / 60, s % 60);
  }
  return buf;
}

}  // namespace

std::string ProgressTiming(double elapsed_ms, int done, int total) {
  const std::string eta =
      done > 0 ? Clock(elapsed_ms / done * std::max(total - done, 0)) : std::string("-:--");
  return Format("{} ETA {}", Clock(elapsed_ms), eta);
}

std::string ConsoleReporter::Paint(std::string_view sgr, std::string_view text) const {
  if (!options_.color || sgr.empty()) return std::string(text);
  return Format("\x1b[{}m{}\x1b[0m", sgr, text);
}

std::string ConsoleReporter::ProgressLine(const ScenarioInfo& scenario) const {
  std::string counter =
      scenario_count_ > 0 ? Format("{}/{}", started_, scenario_count_) : std::to_string(started_);
  if (options_.tty && options_.timing) {
    const double elapsed =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - run_start_)
            .count();
    counter += ' ';  // appended in two steps: GCC 12 -Wrestrict misreads " " + string
    counter += ProgressTiming(elapsed, finished_, scenario_count_);
  }
  counter = Format("[{}] ", counter);
  std::string id = ReadableText(scenario.Id());
  std::replace(id.begin(), id.end(), '\n', ' ');
  if (options_.tty && options_.width > 0) {
    // Room for the counter, " … ", the widest outcome label and the cursor.
    const int room = options_.width - static_cast<int>(Columns(counter)) - 3 - 5 - 1;
    id = Truncate(id, static_cast<std::size_t>(std::max(room, 8)));
  }
  return Format("{}{} {}", Paint(kDim, counter), id, kEllipsis);
}

void ConsoleReporter::OnRunStart(const RunStartInfo& info) {
  scenario_count_ = info.scenario_count;
  started_ = 0;
  finished_ = 0;
  run_start_ = std::chrono::steady_clock::now();
  out_ << Paint(kBold, Format("llmconform {}", ReadableText(info.tool_version)))
       << Format(": {} from {}\n", Plural(info.scenario_count, "scenario"),
                 ReadableText(info.spec_dir));
  out_.flush();
}

void ConsoleReporter::OnScenarioStart(const ScenarioInfo& scenario) {
  ++started_;
  if (!options_.tty) return;
  out_ << kEraseLine << ProgressLine(scenario);
  line_open_ = true;
  out_.flush();
}

void ConsoleReporter::OnScenarioEnd(const ScenarioResult& result) {
  const Outcome o = result.Overall();
  ++finished_;
  if (options_.tty) out_ << kEraseLine;
  out_ << ProgressLine(result.info) << ' ' << Paint(OutcomeSgr(o), OutcomeLabel(o));
  if (const int expected = result.ExpectedFailures(); expected > 0) {
    out_ << ' '
         << Paint(OutcomeSgr(Outcome::kSkip),
                  Format("({} expected {})", expected, expected == 1 ? "failure" : "failures"));
  }
  const bool keep = o == Outcome::kFail || o == Outcome::kError || !options_.tty;
  if (keep) {
    out_ << '\n';
    line_open_ = false;
    WriteFailures(result);
  } else {
    line_open_ = true;
  }
  out_.flush();
}

void ConsoleReporter::WriteFailures(const ScenarioResult& result) {
  // "    FAIL  rule: message", then the evidence under the rule id.
  constexpr std::string_view kIndent = "    ";
  const std::string evidence_indent = std::string(kIndent) + std::string(6, ' ');
  // An error that stopped many rules at once (a stream that could not be
  // read, a trace that would not load) is one line, not one per rule.
  std::map<std::string_view, int> error_rules;
  for (const CheckResult& c : result.checks) {
    if (c.outcome == Outcome::kError) ++error_rules[c.message];
  }
  bool any = false;
  for (const CheckResult& c : result.checks) {
    if (c.outcome != Outcome::kFail && c.outcome != Outcome::kError) continue;
    any = true;
    std::string rules = ReadableText(c.rule);
    if (c.outcome == Outcome::kError) {
      int& shared = error_rules[c.message];
      if (shared == 0) continue;  // said with the first rule it stopped
      if (shared > 1)
        rules += Format(" and {} more {}", shared - 1, shared == 2 ? "rule" : "rules");
      shared = 0;
    }
    out_ << kIndent << Paint(OutcomeSgr(c.outcome), PadRight(OutcomeLabel(c.outcome), 5)) << ' '
         << Paint(kBold, rules) << ": " << ReadableText(c.message) << '\n';
    if (!c.evidence) continue;
    const auto field = [&](std::string_view label, const std::string& value) {
      // "expected: value", values lined up; continuation lines of a
      // multi-line value under its first line.
      const std::string head = PadRight(Format("{}:", label), 10);
      const std::string continuation = "\n" + evidence_indent + std::string(head.size(), ' ');
      std::string text = ReadableText(value);
      for (std::size_t at = text.find('\n'); at != std::string::npos;
           at = text.find('\n', at + continuation.size())) {
        text.replace(at, 1, continuation);
      }
      out_ << evidence_indent << Paint(kDim, head) << text << '\n';
    };
    field("expected", c.evidence->expected);
    field("actual", c.evidence->actual);
    field("where", c.evidence->where);
  }
  if (!any) return;
  std::string files;
  if (!result.info.file.empty()) files = Format("scenario {}", ReadableText(result.info.file));
  if (!result.info.trace.empty()) {
    files += Format("{}trace {}", files.empty() ? "" : ", ", ReadableText(result.info.trace));
  }
  if (!files.empty()) out_ << kIndent << Paint(kDim, files) << '\n';
}

void ConsoleReporter::WriteSummary(const RunResult& run) {
  std::vector<ProtocolTotals> rows = run.TotalsByProtocol();
  rows.push_back({"total", run.ScenarioTotals(), run.CheckTotals()});
  std::size_t name_width = std::string_view("protocol").size();
  for (ProtocolTotals& row : rows) {
    row.protocol = ReadableText(row.protocol);
    name_width = std::max(name_width, Columns(row.protocol));
  }

  // Two groups of columns, "  total  pass  fail  skip error", for scenarios
  // and for checks; zeros dimmed, other counts in their outcome's colour.
  const auto group = [&](const Totals& t) {
    std::string out = PadLeft(std::to_string(t.Total()), 7);
    for (Outcome o : kOutcomes) {
      const std::string n = std::to_string(t.Of(o));
      out += std::string(6 - std::min<std::size_t>(n.size(), 5), ' ');
      out += Paint(t.Of(o) == 0 ? kDim : OutcomeSgr(o), n);
    }
    return out;
  };
  const std::string header_top =
      std::string(name_width + 4, ' ') + PadRight("scenarios", 34) + "checks";
  const std::string header = PadRight("protocol", name_width) + "  " +
                             "  total  pass  fail  skip error" + "   " +
                             "  total  pass  fail  skip error";
  out_ << '\n' << Paint(kDim, header_top) << '\n' << Paint(kBold, header) << '\n';
  for (std::size_t i = 0; i < rows.size(); ++i) {
    const std::string label = PadRight(rows[i].protocol, name_width);
    out_ << (i + 1 == rows.size() ? Paint(kBold, label) : label) << "  " << group(rows[i].scenarios)
         << "   " << group(rows[i].checks) << '\n';
  }
}

void ConsoleReporter::OnRunEnd(const RunResult& run) {
  if (line_open_ && options_.tty) {
    out_ << kEraseLine;
    line_open_ = false;
  }
  WriteSummary(run);

  const Totals checks = run.CheckTotals();
  int failing_scenarios = 0, erring_scenarios = 0;
  for (const ScenarioResult& s : run.scenarios) {
    const Totals t = s.CheckTotals();
    failing_scenarios += t.fail > 0;
    erring_scenarios += t.error > 0;
  }
  const std::string scenarios = Plural(static_cast<int>(run.scenarios.size()), "scenario");
  std::string verdict;
  switch (run.ExitCode()) {
    case kExitOk:
      verdict = Format("{} {}, {} conformant", Paint("1;32", "PASS"), scenarios,
                       Plural(checks.Total(), "check"));
      if (const int expected = run.ExpectedFailures(); expected > 0) {
        verdict += Format(" ({} skipped, {} of them expected failures)", checks.skip, expected);
      } else if (checks.skip > 0) {
        verdict += Format(" ({} skipped)", checks.skip);
      }
      break;
    case kExitFail:
      verdict = Format("{} {} failed in {} of {}", Paint(OutcomeSgr(Outcome::kFail), "FAIL"),
                       Plural(checks.fail, "check"), failing_scenarios, scenarios);
      break;
    default:
      verdict = Format("{} the harness could not judge {} in {} of {}",
                       Paint(OutcomeSgr(Outcome::kError), "ERROR"), Plural(checks.error, "check"),
                       erring_scenarios, scenarios);
      if (checks.fail > 0) {
        verdict += Format("; {} failed in {}", Plural(checks.fail, "check"),
                          Plural(failing_scenarios, "scenario"));
      }
  }
  out_ << '\n' << verdict << " \u2014 " << HumanDuration(run.duration_ms) << '\n';
  out_.flush();
}

}  // namespace llmconform::reports
