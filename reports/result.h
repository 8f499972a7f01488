// The result model: what a conformance run found, independent of how it is
// shown. Closed outcome set, as rapidcheck's Success | Failure | GaveUp | Error:
//   Pass  — the rule holds on what was observed;
//   Fail  — it does not; the result carries the evidence (expected, actual, where);
//   Skip  — the rule does not apply to this observation (the message says why);
//   Error — the harness itself broke (a trace failed to load, a driver threw);
//           never a verdict on the implementation under test.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "base/exit_code.h"

namespace llmconform::reports {

enum class Outcome { kPass, kFail, kSkip, kError };
// Every outcome, in the order reports list them.
inline constexpr Outcome kOutcomes[] = {Outcome::kPass, Outcome::kFail, Outcome::kSkip,
                                        Outcome::kError};

std::string_view OutcomeName(Outcome o);  // "pass" | "fail" | "skip" | "error"
// The inverse of OutcomeName; nullopt for any other text (case-sensitive).
std::optional<Outcome> OutcomeFromName(std::string_view name);
// The worse of two outcomes: Error > Fail > Pass > Skip.
Outcome Worse(Outcome a, Outcome b);

struct Evidence {
  std::string expected;
  std::string actual;
  std::string
      where;  // a JSON pointer into the observation, or "journal[2]/request/body/messages/0"
  friend bool operator==(const Evidence&, const Evidence&) = default;
};

struct CheckResult {
  std::string rule;  // id from specs/<protocol>/rules.json
  Outcome outcome = Outcome::kPass;
  std::string message;  // one sentence; for Pass, what was verified
  std::optional<Evidence> evidence;
  // An expected failure (--expected-failures, reports/expected_failures.h):
  // the reason the baseline gives. Such a check failed, but its outcome is
  // Skip (it fails nothing) and its message says so; "" for every other check.
  std::string expected_failure;

  static CheckResult Pass(std::string rule, std::string message);
  static CheckResult Fail(std::string rule, std::string message, Evidence evidence);
  static CheckResult Skip(std::string rule, std::string message);
  static CheckResult Error(std::string rule, std::string message);
  friend bool operator==(const CheckResult&, const CheckResult&) = default;
};

// What identifies a scenario in reports and how to reproduce it.
struct ScenarioInfo {
  std::string protocol;
  std::string name;
  std::string description;
  std::string file;      // the scenario file, relative to the specs folder's parent
  std::string trace;     // the trace it replays, if any
  std::string provider;  // provider dialect of the trace ("openai", "deepseek", …)
  // Optional labels from the scenario file ("streaming", "tools"); the matrix
  // shows each tag as a feature column beside the protocols.
  std::vector<std::string> tags;
  // `run --dialects`: the provider dialect the trace was rewritten into
  // (mockllm/dialect_rewrite.h); "" in a plain run.
  std::string dialect;
  // `run --dialects`, a scenario that failed: the deviations of its dialect
  // that changed its replies (mockllm::DeviationsApplied), the suspects for
  // the failure; empty otherwise.
  std::vector<std::string> deviations;

  // "skill/git-quick-commit", and "skill/git-quick-commit@deepseek" in a dialect.
  std::string Id() const { return protocol + "/" + name + (dialect.empty() ? "" : "@" + dialect); }
  friend bool operator==(const ScenarioInfo&, const ScenarioInfo&) = default;
};

struct Totals {
  int pass = 0, fail = 0, skip = 0, error = 0;
  int Total() const { return pass + fail + skip + error; }
  void Add(Outcome o);
  int Of(Outcome o) const;  // the count for one outcome
  Totals& operator+=(const Totals& other);
  friend bool operator==(const Totals&, const Totals&) = default;
};

struct ScenarioResult {
  ScenarioInfo info;
  std::vector<CheckResult> checks;
  double duration_ms = 0;
  // The worst outcome: Error > Fail > Pass > Skip (all Skip → Skip; no checks
  // at all → Skip, since nothing was verified).
  Outcome Overall() const;
  Totals CheckTotals() const;
  int ExpectedFailures() const;  // checks with an expected_failure
  friend bool operator==(const ScenarioResult&, const ScenarioResult&) = default;
};

struct RuleInfo {
  std::string id;
  std::string protocol;
  std::string source;  // "<seed file> §<section>"
  std::string text;
  std::string severity;  // "must" | "should"
  friend bool operator==(const RuleInfo&, const RuleInfo&) = default;
};

// Scenario and check totals of one protocol, for summary tables.
struct ProtocolTotals {
  std::string protocol;
  Totals scenarios;
  Totals checks;
  friend bool operator==(const ProtocolTotals&, const ProtocolTotals&) = default;
};

struct RunResult {
  std::string tool_version;
  std::string started_at;  // ISO 8601 UTC
  double duration_ms = 0;
  // The identity of the specs and fixtures judged by ("sha256:…"; "" when
  // unknown), so that shard reports of different spec sets are not merged.
  std::string spec_hash;
  std::string shard;  // "K/N" for a shard's report, "" for a whole run
  std::vector<ScenarioResult> scenarios;
  std::vector<RuleInfo> rules;  // the catalogue the run judged by
  Totals CheckTotals() const;
  Totals ScenarioTotals() const;
  int ExpectedFailures() const;  // checks with an expected_failure, in every scenario
  // One entry a protocol, in the order protocols first appear in `scenarios`.
  std::vector<ProtocolTotals> TotalsByProtocol() const;
  // The catalogue entry of a rule as judged in `protocol`: an exact
  // (protocol, id) match first, else the first entry with that id; nullptr
  // when the catalogue does not hold it.
  const RuleInfo* FindRule(std::string_view protocol, std::string_view id) const;
  // kExitOk all conformant, kExitFail any Fail, kExitInternal any Error
  // (base/exit_code.h).
  int ExitCode() const;
  friend bool operator==(const RunResult&, const RunResult&) = default;
};

}  // namespace llmconform::reports
