// `llmconform check`: differential property testing of another
// implementation (the SUT, harness/difftest/sut_process.h) against the oracle.
//
// Per op: replay the corpus cases first, then generate inputs (seeded,
// harness/difftest/generators.h), send them to the SUT pipelined and to the
// reference, and compare the op's verdict fields (specs/oracle/<op>.json
// "compare", or the --compare override). Disagreements are grouped by what
// distinguishes them — the deciding rule (the reference's first finding or
// evidenced rule, and the step of the reference that decided the differing
// part where the op's record names one: generators.h DecidingRule) and the
// differing pointers, or the SUT's own failure kind — and one case per group
// is shrunk to a minimal input that stays in its group. Each shrunk case is
// saved as a replay file.
#pragma once

#include <chrono>
#include <cstdint>
#include <expected>
#include <filesystem>
#include <map>
#include <nlohmann/json.hpp>
#include <optional>
#include <string>
#include <vector>

#include "base/error.h"
#include "reports/result.h"

namespace llmconform::harness::difftest {

struct CheckOptions {
  std::string sut_command;
  std::vector<std::string> ops;
  int cases = 1000;  // generated per op
  std::uint64_t seed = 0;
  double time_limit_s = 0;                    // per op, generation stops after this; 0 = no limit
  std::filesystem::path corpus;               // "" = none
  std::vector<std::string> compare;           // overrides every op's "compare" when not empty
  int max_failures = 10;                      // groups reported (and shrunk) per run
  std::vector<std::filesystem::path> replay;  // replay only these files (or folders of them)
  std::filesystem::path specs_dir = "specs";
  std::filesystem::path failures_dir;  // where replay files go when there is no corpus
  std::chrono::milliseconds case_timeout{10000};
  std::size_t window = 512;
  int max_shrink_steps = 2000;  // SUT calls spent shrinking one group
};

struct Group {
  std::string op;
  std::string key;   // what the group is: "ACT-11 /text", "SKILL-CLEAN-6 echo /text"
                     // or "sut: timeout"
  std::string rule;  // the deciding rule ("" when the reference names none)
  std::string step;  // the reference's deciding step within it ("" when the rule says all)
  std::vector<std::string> pointers;
  std::string sut_failure;  // "" or the SUT's failure kind (garbage, timeout, crash, …)
  std::size_t count = 0;    // cases that fell in this group
  nlohmann::json original;  // the first input found
  nlohmann::json input;     // the shrunk input
  nlohmann::json expected;  // the reference's answer {"output"}|{"error"} for `input`
  nlohmann::json actual;    // the SUT's answer {"output"}|{"error"}|{"failure","detail"}
  int shrink_steps = 0;     // accepted shrinks
  std::string origin;       // "generated (seed S, case N)" | "corpus FILE" | "replay FILE"
  std::filesystem::path replay_file;  // where the case was saved ("" when not saved)
};

struct OpResult {
  std::string op;
  std::size_t cases = 0;  // cases compared (corpus + generated)
  std::size_t corpus_cases = 0;
  std::size_t disagreements = 0;
  std::map<std::string, std::size_t> triggered;  // rule -> cases the reference showed it in
  std::vector<std::string> rules;                // the rules the op can decide (for coverage)
  std::vector<Group> groups;                     // at most max_failures over the whole run
  std::size_t groups_not_shown = 0;
};

struct CheckReport {
  std::uint64_t seed = 0;
  std::vector<OpResult> ops;
  std::size_t cases = 0;
  double seconds = 0;
  int sut_restarts = 0;
  bool AnyDisagreement() const;
};

// Errors (exit 2): an unknown op or one without a generator, a schema file
// missing or malformed, a bad compare pointer, an unreadable replay file, a
// SUT command that never answers.
std::expected<CheckReport, Error> RunCheck(const CheckOptions& options, std::ostream& progress);

// The report as a run of `run`'s reporters: one scenario per op
// (protocol = the op's protocol, name = the op), one Pass check when every
// case agreed, one Fail check per group otherwise, its rule the deciding rule
// when `catalog` holds it and GATE-CHECK-AGREE (or GATE-CHECK-SUT for the
// SUT's own failures) otherwise.
reports::RunResult ToRunResult(const CheckReport& report,
                               const std::vector<reports::RuleInfo>& catalog);

// Per op, the rules the reference showed the generated cases exercising and
// those never reached, as text.
std::string CoverageText(const CheckReport& report);

}  // namespace llmconform::harness::difftest
