#include "reports/baseline.h"

#include <algorithm>
#include <map>
#include <tuple>

#include "base/format.h"
#include "reports/json_reporter.h"
#include "reports/markdown.h"

namespace llmconform::reports {
namespace {

using Key = std::tuple<std::string, std::string, std::string>;  // protocol, scenario, rule

struct Aggregate {
  Key key;
  Outcome outcome;
  std::string message;
};

// One entry a (protocol, scenario, rule), in order of first appearance.
std::vector<Aggregate> Flatten(const RunResult& run) {
  std::vector<Aggregate> out;
  std::map<Key, std::size_t> index;
  for (const ScenarioResult& s : run.scenarios) {
    for (const CheckResult& c : s.checks) {
      Key key{s.info.protocol,
              s.info.dialect.empty() ? s.info.name : s.info.name + "@" + s.info.dialect, c.rule};
      auto [it, inserted] = index.try_emplace(key, out.size());
      if (inserted) {
        out.push_back({std::move(key), c.outcome, c.message});
        continue;
      }
      Aggregate& a = out[it->second];
      if (Worse(a.outcome, c.outcome) != a.outcome) {
        a.outcome = c.outcome;
        a.message = c.message;
      }
    }
  }
  return out;
}

bool Failing(Outcome o) { return o == Outcome::kFail || o == Outcome::kError; }

BaselineChange MakeChange(ChangeKind kind, const Key& key, std::optional<Outcome> before,
                          std::optional<Outcome> after, std::string message) {
  return {kind,  std::get<0>(key),  std::get<1>(key), std::get<2>(key), before,
          after, std::move(message)};
}

constexpr ChangeKind kChangeKinds[] = {ChangeKind::kNewlyFailing, ChangeKind::kNewlyPassing,
                                       ChangeKind::kOutcomeChanged, ChangeKind::kAdded,
                                       ChangeKind::kRemoved};

}  // namespace

std::string_view ChangeKindName(ChangeKind k) {
  switch (k) {
    case ChangeKind::kNewlyFailing:
      return "newly failing";
    case ChangeKind::kNewlyPassing:
      return "newly passing";
    case ChangeKind::kOutcomeChanged:
      return "changed";
    case ChangeKind::kAdded:
      return "added";
    case ChangeKind::kRemoved:
      return "removed";
  }
  return "changed";
}

std::vector<BaselineChange> DiffRuns(const RunResult& baseline, const RunResult& current) {
  const std::vector<Aggregate> before = Flatten(baseline), after = Flatten(current);
  std::map<Key, const Aggregate*> before_by_key, after_by_key;
  for (const Aggregate& a : before) before_by_key[a.key] = &a;
  for (const Aggregate& a : after) after_by_key[a.key] = &a;

  std::vector<BaselineChange> changes;
  for (const Aggregate& now : after) {
    auto it = before_by_key.find(now.key);
    if (it == before_by_key.end()) {
      changes.push_back(
          MakeChange(ChangeKind::kAdded, now.key, std::nullopt, now.outcome, now.message));
      continue;
    }
    const Outcome was = it->second->outcome;
    if (was == now.outcome) continue;
    ChangeKind kind = ChangeKind::kOutcomeChanged;
    if (!Failing(was) && Failing(now.outcome)) kind = ChangeKind::kNewlyFailing;
    if (Failing(was) && now.outcome == Outcome::kPass) kind = ChangeKind::kNewlyPassing;
    changes.push_back(MakeChange(kind, now.key, was, now.outcome, now.message));
  }
  for (const Aggregate& was : before) {
    if (!after_by_key.contains(was.key)) {
      changes.push_back(
          MakeChange(ChangeKind::kRemoved, was.key, was.outcome, std::nullopt, was.message));
    }
  }
  std::stable_sort(changes.begin(), changes.end(),
                   [](const BaselineChange& a, const BaselineChange& b) {
                     return static_cast<int>(a.kind) < static_cast<int>(b.kind);
                   });
  return changes;
}

std::expected<std::vector<BaselineChange>, Error> DiffAgainstBaseline(
    const nlohmann::json& baseline_report, const RunResult& current) {
  auto baseline = ReportFromJson(baseline_report);
  if (!baseline) return std::unexpected(Error{"baseline report: " + baseline.error().message});
  return DiffRuns(*baseline, current);
}

bool HasRegressions(const std::vector<BaselineChange>& changes) {
  for (const BaselineChange& c : changes) {
    if (c.kind == ChangeKind::kNewlyFailing) return true;
    if (c.kind == ChangeKind::kAdded && c.after && Failing(*c.after)) return true;
  }
  return false;
}

std::string RenderBaselineDiffMarkdown(const std::vector<BaselineChange>& changes) {
  std::string out = "## Changes against the baseline\n\n";
  if (changes.empty()) return out + "No changes against the baseline.\n";
  std::string counts;
  for (ChangeKind k : kChangeKinds) {
    const auto n = std::count_if(changes.begin(), changes.end(),
                                 [k](const BaselineChange& c) { return c.kind == k; });
    counts += Format("{}{} {}", counts.empty() ? "" : ", ", n, ChangeKindName(k));
  }
  out += counts + ".\n";
  const auto outcome = [](const std::optional<Outcome>& o) {
    return o ? MarkdownOutcome(*o) : "—";
  };
  for (ChangeKind k : kChangeKinds) {
    std::vector<std::vector<std::string>> rows;
    for (const BaselineChange& c : changes) {
      if (c.kind != k) continue;
      rows.push_back({MarkdownCode(c.protocol + "/" + c.scenario), MarkdownCode(c.rule),
                      outcome(c.before), outcome(c.after), MarkdownText(c.message)});
    }
    if (rows.empty()) continue;
    std::string title(ChangeKindName(k));
    title[0] = static_cast<char>(title[0] - 'a' + 'A');
    out += Format("\n### {} ({})\n\n", title, rows.size());
    out += MarkdownTable({"scenario", "rule", "before", "after", "message"}, {}, rows);
  }
  return out;
}

}  // namespace llmconform::reports
