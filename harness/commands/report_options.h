// The report options the subcommands share: --out and --report (run, merge,
// judge, sse-check, check), --baseline (run, merge) and --expected-failures
// (run, check). Each writes its diagnostics to stderr as "llmconform
// COMMAND: …" and says by its result whether the command may go on.
#pragma once

#include <CLI/CLI.hpp>
#include <expected>
#include <filesystem>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "base/error.h"
#include "base/json.h"
#include "reports/expected_failures.h"
#include "reports/reporter.h"

namespace llmconform::harness {

// The --out and --report options, the reporters they select, and the report
// files, written atomically once the run is over.
class ReportOptions {
 public:
  void Setup(CLI::App& app);

  // Builds the reporters into `fan`. Error: an unknown reporter or option,
  // or two reporters writing one file.
  std::expected<void, Error> Build(reports::MultiReporter& fan);

  // A buffer whose content becomes the file `name` (relative to --out); owned
  // by this object, valid until it is destroyed.
  std::ostringstream* AddFile(const std::filesystem::path& name);

  // Writes every file; returns false (after saying why) when one could not be.
  bool WriteFiles(std::string_view command);

  const std::filesystem::path& out() const { return out_; }

  // The same reporters, writing into the folder `sub` under --out (nothing
  // built or written yet).
  ReportOptions Under(const std::filesystem::path& sub) const;

 private:
  std::filesystem::path out_ = "out/reports";
  std::vector<std::string> reports_;
  std::vector<std::pair<std::filesystem::path, std::unique_ptr<std::ostringstream>>> files_;
};

// The --baseline option of run and merge: a previous report.json whose diff
// against this run becomes baseline-diff.md.
class BaselineOption {
 public:
  void Setup(CLI::App& app);
  // Reads the file; false (after saying why) when it is not a JSON report.
  bool Load(std::string_view command);
  bool given() const { return !path_.empty(); }
  // Adds baseline-diff.md to `reports`; false (after saying why) on a bad baseline.
  bool AddDiff(std::string_view command, const reports::RunResult& run, ReportOptions& reports);

 private:
  std::string path_;
  std::optional<Json> doc_;
};

// The --expected-failures option of run and check (reports/expected_failures.h).
class ExpectedFailuresOption {
 public:
  void Setup(CLI::App& app);
  // Reads the file; false (after saying why) when it cannot be used.
  // `scenarios` ("protocol/name") and `rules`, when given, must name every
  // entry's scenario and rule.
  bool Load(std::string_view command, const std::vector<std::string>* scenarios = nullptr,
            const std::vector<reports::RuleInfo>* rules = nullptr);
  // The loaded baseline; null when the option was not given.
  const reports::ExpectedFailures* get() const { return baseline_ ? &*baseline_ : nullptr; }

 private:
  std::string path_;
  std::optional<reports::ExpectedFailures> baseline_;
};

}  // namespace llmconform::harness
