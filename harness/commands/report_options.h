// The report options the subcommands share: --out and --report (run, merge,
// judge, sse-check, check), --baseline (run, merge) and --expected-failures
// (run, check). Each writes its diagnostics to stderr as "llmconform
// COMMAND: …" and says by its result whether the command may go on.
#pragma once

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
#include "base/file.h"
#include "base/json_read.h"
#include "harness/commands/command.h"
#include "reports/baseline.h"
#include "reports/expected_failures.h"
#include "reports/registry.h"
#include "reports/reporter.h"

namespace llmconform::harness {

inline int TerminalWidth() {
  winsize ws{};
  return ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

inline std::string ReporterNames() {
  std::string names;
  for (const auto& kind : reports::ReporterKinds())
    names += (names.empty() ? "" : ", ") + std::string(kind.name);
  return names;
}

// The --out and --report options, the reporters they select, and the report
// files, written atomically once the run is over.
class ReportOptions {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--out", out_, "folder the report files are written to")->capture_default_str();
    app.add_option("--report", reports_,
                   "reporter to use, repeatable: NAME[:out=FILE] (FILE relative to --out, '-' for "
                   "stdout); names: " +
                       ReporterNames() +
                       " (default: console, json, junit, markdown, html, matrix, matrix-html)");
  }

  // Builds the reporters into `fan`. Error: an unknown reporter or option,
  // or two reporters writing one file.
  std::expected<void, Error> Build(reports::MultiReporter& fan) {
    static const std::vector<std::string> kDefault = {"console", "json",   "junit",      "markdown",
                                                      "html",    "matrix", "matrix-html"};
    auto requests = reports::ParseReportSpecs(reports_.empty() ? kDefault : reports_);
    if (!requests) return std::unexpected(requests.error());
    const bool tty = ::isatty(STDOUT_FILENO) == 1;
    for (const auto& req : *requests) {
      reports::ReporterOutputs outputs;
      if (req.out.empty() || req.out == "-") {
        outputs.out =
            &std::cout;  // the terminal: human output goes to stdout, diagnostics to stderr
        outputs.console = reports::ConsoleOptionsFor(tty, std::getenv("NO_COLOR"),
                                                     std::getenv("CI"), TerminalWidth());
      } else {
        outputs.out = AddFile(req.out);
      }
      if (!req.companion.empty()) outputs.companion = AddFile(req.companion);
      fan.Add(req.kind->factory(outputs));
    }
    return {};
  }

  // A buffer whose content becomes the file `name` (relative to --out).
  std::ostringstream* AddFile(const fs::path& name) {
    files_.emplace_back(name.is_absolute() ? name : out_ / name,
                        std::make_unique<std::ostringstream>());
    return files_.back().second.get();
  }

  // Writes every file; returns false (after saying why) when one could not be.
  bool WriteFiles(std::string_view command) {
    for (auto& [path, buffer] : files_) {
      if (auto written = WriteFileAtomically(path, buffer->str()); !written) {
        std::cerr << "llmconform " << command << ": " << written.error().message << '\n';
        return false;
      }
    }
    if (!files_.empty()) {
      std::cerr << "reports written to " << out_.string() << "/:";
      for (const auto& [path, buffer] : files_) std::cerr << ' ' << path.filename().string();
      std::cerr << '\n';
    }
    return true;
  }

  const fs::path& out() const { return out_; }

  // The same reporters, writing into the folder `sub` under --out (nothing
  // built or written yet).
  ReportOptions Under(const fs::path& sub) const {
    ReportOptions r;
    r.out_ = out_ / sub;
    r.reports_ = reports_;
    return r;
  }

 private:
  fs::path out_ = "out/reports";
  std::vector<std::string> reports_;
  std::vector<std::pair<fs::path, std::unique_ptr<std::ostringstream>>> files_;
};

// The --baseline option of run and merge: a previous report.json whose diff
// against this run becomes baseline-diff.md.
class BaselineOption {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--baseline", path_,
                   "a previous report.json: also write baseline-diff.md of what changed");
  }
  // Reads the file; false (after saying why) when it is not a JSON report.
  bool Load(std::string_view command) {
    if (path_.empty()) return true;
    auto text = ReadFile(path_);
    if (!text) {
      std::cerr << "llmconform " << command << ": --baseline " << text.error().message << '\n';
      return false;
    }
    nlohmann::json doc = ReadJsonOrDiscarded(*text);
    if (doc.is_discarded() || !doc.is_object()) {
      std::cerr << "llmconform " << command << ": --baseline " << path_ << ": not a JSON report\n";
      return false;
    }
    doc_ = std::move(doc);
    return true;
  }
  bool given() const { return !path_.empty(); }
  // Adds baseline-diff.md to `reports`; false (after saying why) on a bad baseline.
  bool AddDiff(std::string_view command, const reports::RunResult& run, ReportOptions& reports) {
    if (!doc_) return true;
    auto diff = reports::DiffAgainstBaseline(*doc_, run);
    if (!diff) {
      std::cerr << "llmconform " << command << ": --baseline " << path_ << ": "
                << diff.error().message << '\n';
      return false;
    }
    *reports.AddFile("baseline-diff.md") << reports::RenderBaselineDiffMarkdown(*diff);
    return true;
  }

 private:
  std::string path_;
  std::optional<nlohmann::json> doc_;
};

// The --expected-failures option of run and check (reports/expected_failures.h).
class ExpectedFailuresOption {
 public:
  void Setup(CLI::App& app) {
    app.add_option("--expected-failures", path_,
                   "YAML or JSON list of {scenario: PROTOCOL/NAME[@DIALECT][:RULE-ID], reason}: "
                   "those failures are reported apart and do not fail the run; an entry that "
                   "now passes does (stale baseline: remove it)");
  }
  // Reads the file; false (after saying why) when it cannot be used.
  // `scenarios` ("protocol/name") and `rules`, when given, must name every
  // entry's scenario and rule.
  bool Load(std::string_view command, const std::vector<std::string>* scenarios = nullptr,
            const std::vector<reports::RuleInfo>* rules = nullptr) {
    if (path_.empty()) return true;
    auto text = ReadFile(path_);
    if (!text) {
      std::cerr << "llmconform " << command << ": --expected-failures " << text.error().message
                << '\n';
      return false;
    }
    auto parsed = reports::ParseExpectedFailures(path_, *text);
    if (parsed && scenarios && rules) {
      if (auto known = reports::CheckExpectedFailuresKnown(*parsed, *scenarios, *rules); !known)
        parsed = std::unexpected(known.error());
    }
    if (!parsed) {
      std::cerr << "llmconform " << command << ": --expected-failures " << parsed.error().message
                << '\n';
      return false;
    }
    baseline_ = std::move(*parsed);
    return true;
  }
  // The loaded baseline; null when the option was not given.
  const reports::ExpectedFailures* get() const { return baseline_ ? &*baseline_ : nullptr; }

 private:
  std::string path_;
  std::optional<reports::ExpectedFailures> baseline_;
};

}  // namespace llmconform::harness
