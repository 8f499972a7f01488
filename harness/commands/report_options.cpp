#include "harness/commands/report_options.h"

#include <sys/ioctl.h>
#include <unistd.h>

#include <cstdlib>
#include <iostream>

#include "base/atomic_file.h"
#include "base/file.h"
#include "base/json_read.h"
#include "reports/baseline.h"
#include "reports/registry.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

int TerminalWidth() {
  winsize ws{};
  return ::ioctl(STDOUT_FILENO, TIOCGWINSZ, &ws) == 0 ? ws.ws_col : 0;
}

std::string ReporterNames() {
  std::string names;
  for (const auto& kind : reports::ReporterKinds())
    names += (names.empty() ? "" : ", ") + std::string(kind.name);
  return names;
}

}  // namespace

void ReportOptions::Setup(CLI::App& app) {
  app.add_option("--out", out_, "folder the report files are written to")->capture_default_str();
  app.add_option("--report", reports_,
                 "reporter to use, repeatable: NAME[:out=FILE] (FILE relative to --out, '-' for "
                 "stdout); names: " +
                     ReporterNames() +
                     " (default: console, json, junit, markdown, html, matrix, matrix-html)");
}

std::expected<void, Error> ReportOptions::Build(reports::MultiReporter& fan) {
  static const std::vector<std::string> kDefault = {"console", "json",   "junit",      "markdown",
                                                    "html",    "matrix", "matrix-html"};
  auto requests = reports::ParseReportSpecs(reports_.empty() ? kDefault : reports_);
  if (!requests) return std::unexpected(requests.error());
  const bool tty = ::isatty(STDOUT_FILENO) == 1;
  for (const auto& req : *requests) {
    reports::ReporterOutputs outputs;
    if (req.out.empty() || req.out == "-") {
      outputs.out = &std::cout;  // the terminal: human output goes to stdout, diagnostics to stderr
      outputs.console = reports::ConsoleOptionsFor(tty, std::getenv("NO_COLOR"), std::getenv("CI"),
                                                   TerminalWidth());
    } else {
      outputs.out = AddFile(req.out);
    }
    if (!req.companion.empty()) outputs.companion = AddFile(req.companion);
    fan.Add(req.kind->factory(outputs));
  }
  return {};
}

std::ostringstream* ReportOptions::AddFile(const fs::path& name) {
  files_.emplace_back(name.is_absolute() ? name : out_ / name,
                      std::make_unique<std::ostringstream>());
  return files_.back().second.get();
}

bool ReportOptions::WriteFiles(std::string_view command) {
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

ReportOptions ReportOptions::Under(const fs::path& sub) const {
  ReportOptions r;
  r.out_ = out_ / sub;
  r.reports_ = reports_;
  return r;
}

void BaselineOption::Setup(CLI::App& app) {
  app.add_option("--baseline", path_,
                 "a previous report.json: also write baseline-diff.md of what changed");
}

bool BaselineOption::Load(std::string_view command) {
  if (path_.empty()) return true;
  auto text = ReadFile(path_);
  if (!text) {
    std::cerr << "llmconform " << command << ": --baseline " << text.error().message << '\n';
    return false;
  }
  Json doc = ReadJsonOrDiscarded(*text);
  if (doc.is_discarded() || !doc.is_object()) {
    std::cerr << "llmconform " << command << ": --baseline " << path_ << ": not a JSON report\n";
    return false;
  }
  doc_ = std::move(doc);
  return true;
}

bool BaselineOption::AddDiff(std::string_view command, const reports::RunResult& run,
                             ReportOptions& reports) {
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

void ExpectedFailuresOption::Setup(CLI::App& app) {
  app.add_option("--expected-failures", path_,
                 "YAML or JSON list of {scenario: PROTOCOL/NAME[@DIALECT][:RULE-ID], reason}: "
                 "those failures are reported apart and do not fail the run; an entry that "
                 "now passes does (stale baseline: remove it)");
}

bool ExpectedFailuresOption::Load(std::string_view command,
                                  const std::vector<std::string>* scenarios,
                                  const std::vector<reports::RuleInfo>* rules) {
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

}  // namespace llmconform::harness
