#include "reports/expected_failures.h"

#include <yaml-cpp/yaml.h>

#include <algorithm>
#include <utility>

#include "base/format.h"

namespace llmconform::reports {
namespace {

constexpr std::size_t kMaxEntries = 100000;
constexpr std::size_t kMaxField = 4096;

std::string Where(std::string_view name, const YAML::Mark& mark) {
  return Format("{}:{}:{}", name, mark.line + 1, mark.column + 1);
}

std::unexpected<Error> At(std::string_view name, const YAML::Mark& mark, std::string_view what) {
  return std::unexpected(Error{Format("{}: {}", Where(name, mark), what)});
}

// The scalar field `key` of `entry`; "" when absent.
std::expected<std::string, Error> Field(std::string_view name, const YAML::Node& entry,
                                        const char* key) {
  const YAML::Node v = entry[key];
  if (!v.IsDefined() || v.IsNull()) return std::string();
  if (!v.IsScalar()) return At(name, v.Mark(), Format("\"{}\": expected a string", key));
  if (v.Scalar().size() > kMaxField)
    return At(name, v.Mark(), Format("\"{}\": longer than {} bytes", key, kMaxField));
  return v.Scalar();
}

std::expected<ExpectedFailure, Error> ReadEntry(std::string_view name, const YAML::Node& entry) {
  if (!entry.IsMap()) {
    return At(name, entry.Mark(),
              "an entry must be an object {scenario: PROTOCOL/NAME[@DIALECT][:RULE], reason: …}");
  }
  for (const auto& kv : entry) {
    const std::string key = kv.first.IsScalar() ? kv.first.Scalar() : std::string();
    if (key != "scenario" && key != "reason")
      return At(name, kv.first.Mark(), Format("unknown field \"{}\" (scenario, reason)", key));
  }
  auto spelling = Field(name, entry, "scenario");
  if (!spelling) return std::unexpected(spelling.error());
  auto reason = Field(name, entry, "reason");
  if (!reason) return std::unexpected(reason.error());
  if (spelling->empty()) return At(name, entry.Mark(), "\"scenario\" is missing");
  if (reason->empty())
    return At(name, entry.Mark(), "\"reason\" is missing: say why this failure is expected");
  ExpectedFailure e;
  e.reason = std::move(*reason);
  e.where = Where(name, entry.Mark());
  std::string_view s = *spelling;
  if (const auto colon = s.find(':'); colon != std::string_view::npos) {
    e.rule = std::string(s.substr(colon + 1));
    s = s.substr(0, colon);
  }
  if (const auto at = s.find('@'); at != std::string_view::npos) {
    e.dialect = std::string(s.substr(at + 1));
    s = s.substr(0, at);
  }
  e.scenario = std::string(s);
  const auto slash = e.scenario.find('/');
  if (slash == std::string::npos || slash == 0 || slash + 1 == e.scenario.size() ||
      (spelling->find(':') != std::string::npos && e.rule.empty()) ||
      (spelling->find('@') != std::string::npos && e.dialect.empty())) {
    return At(name, entry["scenario"].Mark(),
              Format("\"scenario\": \"{}\" is not PROTOCOL/NAME[@DIALECT][:RULE-ID]", *spelling));
  }
  return e;
}

bool Covers(const ExpectedFailure& e, const ScenarioInfo& info) {
  return e.scenario == info.protocol + "/" + info.name &&
         (e.dialect.empty() || e.dialect == info.dialect);
}

bool CoversCheck(const ExpectedFailure& e, const CheckResult& c) {
  return e.rule.empty() || e.rule == c.rule;
}

}  // namespace

std::string ExpectedFailure::Spelling() const {
  return scenario + (dialect.empty() ? "" : "@" + dialect) + (rule.empty() ? "" : ":" + rule);
}

std::expected<ExpectedFailures, Error> ParseExpectedFailures(std::string_view name,
                                                             std::string_view text) {
  YAML::Node root;
  try {
    root = YAML::Load(std::string(text));
  } catch (const YAML::Exception& e) {
    return At(name, e.mark, e.msg);
  }
  ExpectedFailures out;
  if (!root.IsDefined() || root.IsNull()) return out;  // an empty baseline
  YAML::Node list = root;
  if (root.IsMap()) {
    for (const auto& kv : root) {
      if (!kv.first.IsScalar() || kv.first.Scalar() != "expected_failures") {
        return At(name, kv.first.Mark(),
                  "expected a list of entries, or an object with only \"expected_failures\"");
      }
    }
    list = root["expected_failures"];
    if (list.IsNull()) return out;
  }
  if (!list.IsSequence()) return At(name, list.Mark(), "expected a list of entries");
  if (list.size() > kMaxEntries)
    return At(name, list.Mark(), Format("more than {} entries", kMaxEntries));
  for (const YAML::Node& entry : list) {
    auto e = ReadEntry(name, entry);
    if (!e) return std::unexpected(e.error());
    out.entries.push_back(std::move(*e));
  }
  return out;
}

std::expected<void, Error> CheckExpectedFailuresKnown(const ExpectedFailures& baseline,
                                                      const std::vector<std::string>& scenarios,
                                                      const std::vector<RuleInfo>& rules) {
  for (const ExpectedFailure& e : baseline.entries) {
    if (std::ranges::find(scenarios, e.scenario) == scenarios.end()) {
      return std::unexpected(Error{
          Format("{}: no scenario is named \"{}\" (see `llmconform list`)", e.where, e.scenario)});
    }
    if (!e.rule.empty() &&
        std::ranges::none_of(rules, [&](const RuleInfo& r) { return r.id == e.rule; })) {
      return std::unexpected(Error{Format(
          "{}: no rule has the id \"{}\" (see `llmconform list --rules`)", e.where, e.rule)});
    }
  }
  return {};
}

void ApplyExpectedFailures(const ExpectedFailures& baseline, ScenarioResult& result) {
  std::vector<CheckResult> stale;
  for (const ExpectedFailure& e : baseline.entries) {
    if (!Covers(e, result.info)) continue;
    bool failing = false;
    for (CheckResult& c : result.checks) {
      if (!CoversCheck(e, c)) continue;
      if (c.outcome == Outcome::kError) failing = true;  // not judged: not stale either
      if (!c.expected_failure.empty()) failing = true;   // an earlier entry took it
      if (c.outcome != Outcome::kFail) continue;
      failing = true;
      c.outcome = Outcome::kSkip;
      c.expected_failure = e.reason;
      c.message = Format("expected failure ({}): {}", e.reason, c.message);
    }
    if (failing) continue;
    stale.push_back(CheckResult::Fail(
        std::string(kStaleBaselineRule),
        Format("stale baseline: {} ({}) is listed as an expected failure but now passes: remove it",
               e.Spelling(), e.where),
        Evidence{.expected = "fail (" + e.reason + ")", .actual = "pass", .where = e.where}));
  }
  for (CheckResult& c : stale) result.checks.push_back(std::move(c));
}

}  // namespace llmconform::reports
