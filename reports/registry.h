// The built-in reporters, in one table, and the parser of the CLI's
// `--report NAME[:OPTION=VALUE[,OPTION=VALUE]]` values.
//
//   console   progress and failures on the terminal, summary at the end
//   json      report.json, the canonical report (llmconform-report/1)
//   jsonl     events.jsonl, one JSON object per event as it happens
//   junit     junit.xml, JUnit XML for Jenkins and GitLab
//   markdown  report.md, summary, per-protocol tables, failures with evidence
//   html      report.html, one self-contained page
//   matrix    matrix.md and matrix.json, provider × feature
//   matrix-html  matrix.html, the same matrix as one self-contained page
//
// Options: `out=FILE` for every reporter (where the main output goes);
// `json=FILE` for matrix (where matrix.json goes). Values cannot hold a comma.
// The registry opens no files: the CLI opens them (relative to its output
// folder) and hands the streams to the factory.
#pragma once

#include <expected>
#include <memory>
#include <ostream>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "base/error.h"
#include "reports/console_reporter.h"
#include "reports/reporter.h"

namespace llmconform::reports {

// The streams a reporter made by the registry writes to. The CLI owns them;
// they must outlive the reporter.
struct ReporterOutputs {
  std::ostream* out = nullptr;        // the main output; never null
  std::ostream* companion = nullptr;  // the companion output (matrix.json); null: not written
  ConsoleOptions console;             // used by `console` only
};

using ReporterFactory = std::unique_ptr<Reporter> (*)(const ReporterOutputs& outputs);

struct ReporterKind {
  std::string_view name;
  // The main output's file name in the output folder; "" for the terminal
  // (console writes to stderr unless given out=FILE).
  std::string_view default_file;
  std::string_view description;  // one line for --help
  ReporterFactory factory;
  // A second output's file name ("matrix.json", option json=FILE); "" for none.
  std::string_view companion_file = {};
};

// Every built-in reporter, in the order listed above.
std::span<const ReporterKind> ReporterKinds();
// nullptr when there is none of that name.
const ReporterKind* FindReporterKind(std::string_view name);

struct ReportRequest {
  const ReporterKind* kind = nullptr;
  std::string out;        // out=FILE, else kind->default_file ("" → the terminal)
  std::string companion;  // json=FILE, else kind->companion_file ("" → none)
  std::string spec;       // the value as given, for messages
};

// Parses one --report value. Errors name the value and say what was expected:
//   --report 'xml': unknown reporter; expected one of console, json, jsonl, junit, markdown, html,
//   matrix
//   --report 'junit:file=x': unknown option 'file'; expected out=FILE
//   --report 'junit:out': option 'out' needs a value: out=FILE
//   --report 'junit:out=a,out=b': option 'out' given twice
std::expected<ReportRequest, Error> ParseReportSpec(std::string_view spec);

// Parses every value and checks that no two requests write the same file
// (or both the terminal):
//   --report 'markdown:out=report.json': report.json is also written by --report 'json'
std::expected<std::vector<ReportRequest>, Error> ParseReportSpecs(
    std::span<const std::string> specs);

}  // namespace llmconform::reports
