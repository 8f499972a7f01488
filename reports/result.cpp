#include "reports/result.h"

#include <algorithm>
#include <utility>

namespace llmconform::reports {
namespace {

// Higher is worse; the order Overall() and Worse() rank outcomes by.
int Severity(Outcome o) {
  switch (o) {
    case Outcome::kSkip:
      return 0;
    case Outcome::kPass:
      return 1;
    case Outcome::kFail:
      return 2;
    case Outcome::kError:
      return 3;
  }
  return 3;
}

}  // namespace

std::string_view OutcomeName(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      return "pass";
    case Outcome::kFail:
      return "fail";
    case Outcome::kSkip:
      return "skip";
    case Outcome::kError:
      return "error";
  }
  return "error";
}

std::optional<Outcome> OutcomeFromName(std::string_view name) {
  for (Outcome o : kOutcomes) {
    if (OutcomeName(o) == name) return o;
  }
  return std::nullopt;
}

Outcome Worse(Outcome a, Outcome b) { return Severity(b) > Severity(a) ? b : a; }

CheckResult CheckResult::Pass(std::string rule, std::string message) {
  return {std::move(rule), Outcome::kPass, std::move(message), std::nullopt, {}};
}

CheckResult CheckResult::Fail(std::string rule, std::string message, Evidence evidence) {
  return {std::move(rule), Outcome::kFail, std::move(message), std::move(evidence), {}};
}

CheckResult CheckResult::Skip(std::string rule, std::string message) {
  return {std::move(rule), Outcome::kSkip, std::move(message), std::nullopt, {}};
}

CheckResult CheckResult::Error(std::string rule, std::string message) {
  return {std::move(rule), Outcome::kError, std::move(message), std::nullopt, {}};
}

Outcome ScenarioResult::Overall() const {
  Outcome worst = Outcome::kSkip;
  for (const CheckResult& c : checks) worst = Worse(worst, c.outcome);
  return worst;
}

Totals ScenarioResult::CheckTotals() const {
  Totals t;
  for (const CheckResult& c : checks) t.Add(c.outcome);
  return t;
}

int ScenarioResult::ExpectedFailures() const {
  return static_cast<int>(std::ranges::count_if(
      checks, [](const CheckResult& c) { return !c.expected_failure.empty(); }));
}

int RunResult::ExpectedFailures() const {
  int n = 0;
  for (const ScenarioResult& s : scenarios) n += s.ExpectedFailures();
  return n;
}

void Totals::Add(Outcome o) {
  switch (o) {
    case Outcome::kPass:
      ++pass;
      break;
    case Outcome::kFail:
      ++fail;
      break;
    case Outcome::kSkip:
      ++skip;
      break;
    case Outcome::kError:
      ++error;
      break;
  }
}

int Totals::Of(Outcome o) const {
  switch (o) {
    case Outcome::kPass:
      return pass;
    case Outcome::kFail:
      return fail;
    case Outcome::kSkip:
      return skip;
    case Outcome::kError:
      return error;
  }
  return 0;
}

Totals& Totals::operator+=(const Totals& other) {
  pass += other.pass;
  fail += other.fail;
  skip += other.skip;
  error += other.error;
  return *this;
}

Totals RunResult::CheckTotals() const {
  Totals t;
  for (const ScenarioResult& s : scenarios) {
    t += s.CheckTotals();
  }
  return t;
}

Totals RunResult::ScenarioTotals() const {
  Totals t;
  for (const ScenarioResult& s : scenarios) t.Add(s.Overall());
  return t;
}

std::vector<ProtocolTotals> RunResult::TotalsByProtocol() const {
  std::vector<ProtocolTotals> out;
  for (const ScenarioResult& s : scenarios) {
    auto it = std::find_if(out.begin(), out.end(),
                           [&](const ProtocolTotals& p) { return p.protocol == s.info.protocol; });
    if (it == out.end()) it = out.insert(out.end(), ProtocolTotals{s.info.protocol, {}, {}});
    it->scenarios.Add(s.Overall());
    it->checks += s.CheckTotals();
  }
  return out;
}

const RuleInfo* RunResult::FindRule(std::string_view protocol, std::string_view id) const {
  const RuleInfo* by_id = nullptr;
  for (const RuleInfo& r : rules) {
    if (r.id != id) continue;
    if (r.protocol == protocol) return &r;
    if (!by_id) by_id = &r;
  }
  return by_id;
}

int RunResult::ExitCode() const {
  const Totals t = CheckTotals();
  if (t.error > 0) return kExitInternal;
  if (t.fail > 0) return kExitFail;
  return kExitOk;
}

}  // namespace llmconform::reports
