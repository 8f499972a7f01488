// `llmconform check` (harness/commands/command.h).
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/format.h"
#include "base/json_read.h"
#include "harness/commands/command.h"
#include "harness/commands/report_options.h"
#include "harness/data_dir.h"
#include "harness/dialect_cmd.h"
#include "harness/difftest/check_run.h"
#include "harness/difftest/generators.h"
#include "harness/difftest/op_schema.h"
#include "harness/merge.h"
#include "harness/oracle.h"
#include "harness/parallel.h"
#include "harness/probe.h"
#include "harness/rule_index.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "harness/spec_hash.h"
#include "harness/sse_check.h"
#include "harness/suites/registry.h"
#include "reports/baseline.h"
#include "reports/registry.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

class CheckCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--sut", options_.sut_command,
                   "the implementation under test, run as /bin/sh -c CMD: JSON lines on stdin "
                   "({\"id\",\"op\",\"input\"}), JSON lines on stdout ({\"id\",\"output\"} or "
                   "{\"id\",\"error\"})")
        ->required();
    std::string ops;
    for (const auto& op : difftest::GeneratedOps()) ops += (ops.empty() ? "" : ", ") + op;
    app.add_option("--op", options_.ops, "operation to check, repeatable; with generators: " + ops)
        ->required();
    app.add_option("--cases", options_.cases, "inputs generated per op")
        ->capture_default_str()
        ->check(CLI::NonNegativeNumber);
    seed_option_ =
        app.add_option("--seed", seed_, "generation seed (default: from the clock; printed)");
    app.add_option("--time-limit", options_.time_limit_s,
                   "seconds of generation per op at most (0: no limit)")
        ->check(CLI::NonNegativeNumber);
    app.add_option("--case-timeout-ms", timeout_ms_, "per-case time limit for the SUT's answer")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--pipeline", options_.window,
                   "requests in flight to the SUT at most (1: one at a time)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--corpus", options_.corpus,
                   "folder of saved failing cases: replayed first, new failures saved into it");
    app.add_option("--compare", options_.compare,
                   "verdict fields to compare, as JSON pointers ('*' maps over an array); "
                   "default: the op's \"compare\" in specs/oracle/OP.json");
    app.add_option("--max-failures", options_.max_failures,
                   "groups of disagreements reported and shrunk")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--replay", options_.replay,
                   "run only these saved cases (files or folders), no generation");
    app.add_flag("--coverage", coverage_,
                 "print, per op, which rules the generated cases exercised in the reference");
    app.add_option("--specs", options_.specs_dir, "folder of specs/ (rules, oracle schemas)")
        ->capture_default_str();
    reports_.Setup(app);
    expected_failures_.Setup(app);
    app.footer(
        "Differential property testing: inputs generated per op are sent to the SUT (pipelined)\n"
        "and to the reference; verdict fields are compared; each group of disagreements (the\n"
        "reference's deciding rule and step, differing pointers) is shrunk to a minimal input and\n"
        "saved as a --replay file.\n"
        "A SUT that crashes, hangs, prints garbage or answers out of order is reported with the\n"
        "case that caused it and restarted. Exit 0 all agree, 1 a disagreement, 2 usage error.\n\n"
        "Example:\n"
        "  llmconform check --sut 'python3 examples/check_adapter.py' --op action.parse --cases "
        "5000");
  }

  int Run() override {
    options_.seed = seed_option_->count() > 0
                        ? seed_
                        : static_cast<std::uint64_t>(
                              std::chrono::system_clock::now().time_since_epoch().count());
    options_.case_timeout = std::chrono::milliseconds(timeout_ms_);
    options_.failures_dir = reports_.out() / "check-cases";
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform check: " << built.error().message << '\n';
      return kExitUsage;
    }
    if (!expected_failures_.Load("check")) return kExitUsage;
    std::cerr << "llmconform check: seed " << options_.seed << '\n';
    auto report = difftest::RunCheck(options_, std::cerr);
    if (!report) {
      std::cerr << "llmconform check: " << report.error().message << '\n';
      return kExitUsage;
    }
    std::vector<reports::RuleInfo> catalog;
    if (auto specs = LoadSpecs(options_.specs_dir)) {
      for (const auto& [protocol, rules] : specs->rules)
        catalog.insert(catalog.end(), rules.begin(), rules.end());
    }
    reports::RunResult run = difftest::ToRunResult(*report, catalog);
    run.tool_version = LLMCONFORM_VERSION;
    run.started_at = UtcTimestamp(std::time(nullptr));
    if (const reports::ExpectedFailures* expected = expected_failures_.get()) {
      for (auto& s : run.scenarios) reports::ApplyExpectedFailures(*expected, s);
    }
    fan.OnRunStart(reports::RunStartInfo{.tool_version = run.tool_version,
                                         .started_at = run.started_at,
                                         .scenario_count = static_cast<int>(run.scenarios.size()),
                                         .spec_dir = options_.specs_dir.string()});
    for (const auto& s : run.scenarios) {
      fan.OnScenarioStart(s.info);
      for (const auto& c : s.checks) fan.OnCheckResult(s.info, c);
      fan.OnScenarioEnd(s);
    }
    fan.OnRunEnd(run);
    if (coverage_) std::cout << difftest::CoverageText(*report);
    std::cerr << "llmconform check: " << report->cases << " case(s) in " << report->seconds
              << " s (" << static_cast<long long>(report->cases / std::max(report->seconds, 1e-9))
              << " cases/s), " << report->sut_restarts << " SUT restart(s), seed " << options_.seed
              << '\n';
    if (!reports_.WriteFiles("check")) return kExitInternal;
    // With a baseline, expected disagreements pass and stale entries fail.
    if (expected_failures_.get()) return run.ExitCode();
    return report->AnyDisagreement() ? kExitFail : kExitOk;
  }

 private:
  difftest::CheckOptions options_;
  std::uint64_t seed_ = 0;
  CLI::Option* seed_option_ = nullptr;
  long long timeout_ms_ = 10000;
  bool coverage_ = false;
  ReportOptions reports_;
  ExpectedFailuresOption expected_failures_;
};

}  // namespace

std::unique_ptr<Command> MakeCheckCommand() { return std::make_unique<CheckCommand>(); }

}  // namespace llmconform::harness
