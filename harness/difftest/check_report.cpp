#include <algorithm>
#include <string>
#include <vector>

#include "base/format.h"
#include "base/json.h"
#include "base/json_fields.h"
#include "base/json_read.h"
#include "harness/difftest/check_run.h"
#include "harness/difftest/op_schema.h"

namespace llmconform::harness::difftest {
namespace {

std::string PointerList(const std::vector<std::string>& pointers) {
  std::string out;
  for (const auto& p : pointers)
    out += (out.empty() ? "" : ", ") + (p.empty() ? "\"\" (the whole answer)" : p);
  return out;
}

std::string Compact(const Json& j) {
  constexpr std::size_t kMax = 600;
  std::string s = DumpJson(j);
  if (s.size() > kMax) s = s.substr(0, kMax) + "…";
  return s;
}

// expected vs actual at each differing pointer, one per line.
std::pair<std::string, std::string> PointerDiff(const Group& g) {
  if (!g.sut_failure.empty()) return {Compact(g.expected), Compact(g.actual)};
  const bool both_outputs = g.expected.contains("output") && g.actual.contains("output");
  if (!both_outputs) return {Compact(g.expected), Compact(g.actual)};
  std::string want, got;
  for (const auto& p : g.pointers) {
    auto e = Select(g.expected["output"], p);
    auto a = Select(g.actual["output"], p);
    want += Format("{}{}: {}", want.empty() ? "" : "\n", p, e ? Compact(*e) : "(absent)");
    got += Format("{}{}: {}", got.empty() ? "" : "\n", p, a ? Compact(*a) : "(absent)");
  }
  return {want, got};
}

std::string_view ProtocolOf(std::string_view op) { return op.substr(0, op.find('.')); }

}  // namespace

reports::RunResult ToRunResult(const CheckReport& report,
                               const std::vector<reports::RuleInfo>& catalog) {
  reports::RunResult run;
  run.rules = catalog;
  run.duration_ms = report.seconds * 1000;
  auto known = [&](const std::string& id) {
    return std::any_of(catalog.begin(), catalog.end(),
                       [&](const reports::RuleInfo& r) { return r.id == id; });
  };
  for (const auto& op : report.ops) {
    reports::ScenarioResult s;
    s.info.protocol = std::string(ProtocolOf(op.op));
    s.info.name = op.op;
    s.info.description =
        Format("check: {} case(s) compared with the reference (seed {})", op.cases, report.seed);
    s.duration_ms = 0;
    if (op.disagreements == 0) {
      s.checks.push_back(reports::CheckResult::Pass(
          "GATE-CHECK-AGREE",
          Format("the SUT's verdict fields equal the reference's on all {} case(s)", op.cases)));
    }
    for (const auto& g : op.groups) {
      const std::string rule = !g.sut_failure.empty() ? "GATE-CHECK-SUT"
                               : known(g.rule)        ? g.rule
                                                      : "GATE-CHECK-AGREE";
      const auto [want, got] = PointerDiff(g);
      std::string message =
          g.sut_failure.empty()
              ? Format("{} case(s) disagree at {}{}", g.count, PointerList(g.pointers),
                       g.rule.empty() ? ""
                       : g.step.empty()
                           ? Format(" (decided by {})", g.rule)
                           : Format(" (decided by {}, step {} of the reference)", g.rule, g.step))
              : Format("{} case(s): the SUT answered with {}: {}", g.count, g.sut_failure,
                       StringOf(g.actual, "detail"));
      message +=
          Format("; minimal input{}: {}",
                 g.shrink_steps ? Format(" ({} shrinks)", g.shrink_steps) : "", Compact(g.input));
      message += "; found by " + g.origin;
      if (!g.replay_file.empty())
        message += Format("; reproduce: llmconform check --sut '…' --op {} --replay {}", g.op,
                          g.replay_file.string());
      s.checks.push_back(reports::CheckResult::Fail(
          rule, message,
          reports::Evidence{.expected = want, .actual = got, .where = PointerList(g.pointers)}));
    }
    if (op.groups_not_shown > 0) {
      s.checks.push_back(reports::CheckResult::Fail(
          "GATE-CHECK-AGREE",
          Format("{} more group(s) of disagreements not shown (--max-failures)",
                 op.groups_not_shown),
          reports::Evidence{}));
    }
    run.scenarios.push_back(std::move(s));
  }
  return run;
}

std::string CoverageText(const CheckReport& report) {
  std::string out;
  for (const auto& op : report.ops) {
    std::size_t reached = 0;
    std::string never;
    for (const auto& r : op.rules) {
      if (op.triggered.contains(r)) {
        ++reached;
      } else {
        never += (never.empty() ? "" : ", ") + r;
      }
    }
    out += Format("coverage {}: {} case(s)", op.op, op.cases);
    if (!op.rules.empty()) out += Format("; {}/{} rules reached", reached, op.rules.size());
    out += "\n";
    for (const auto& [rule, n] : op.triggered) {
      out += Format("  {}{} {} case(s)\n", rule,
                    std::string(rule.size() < 28 ? 28 - rule.size() : 0, ' '), n);
    }
    if (!never.empty()) out += "  never reached: " + never + "\n";
  }
  return out;
}

}  // namespace llmconform::harness::difftest
