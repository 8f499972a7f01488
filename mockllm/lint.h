// `mockllm lint`: every format error of a trace, and anything in it that
// looks like a secret (mockllm/secrets.h), one problem a line:
//   "f.trace.jsonl:2:57: /request/headers/authorization: holds a secret (an authorization value);
//   redact it"
// Unlike ParseTrace, lint goes on after a bad line and after a line's first
// problem (the parts of an exchange are checked one by one), so one run lists
// them all.
#pragma once

#include <string>
#include <string_view>
#include <vector>

namespace llmconform::mockllm {

// The problems of the trace `text`, named `name` in each message; empty when
// the trace is clean.
std::vector<std::string> LintTrace(std::string_view text, std::string_view name);

struct LintReport {
  std::vector<std::string> problems;  // every problem, in order, as LintTrace
  // What is reported without counting as a problem: a response's framing
  // headers, which replay leaves out (IsFramingHeader), a request path with a
  // query (never matched: the query belongs in request.query), the contract rules
  // a Responses API exchange breaks (mockllm/surface_lint.h); lines
  // "name:line:col: /pointer: warning: …". They never change the exit code.
  std::vector<std::string> warnings;
  std::size_t format_errors = 0;  // of them, format errors (the rest: secrets)
  std::string id;                 // the header's trace id, when it has one
  std::size_t id_line = 0;        // the header's line
};
// LintTrace with the problems counted by kind, and the warnings. `mockllm lint` exits 2 when
// any file has a format error (an input error, as everywhere in llmconform),
// else 1 when a secret was found, else 0.
LintReport LintTraceReport(std::string_view text, std::string_view name);

// LintTraceReport a line at a time, for a trace being written (mockllm
// import lints each line before it goes to the file, never holding the whole
// text). Lines are given in order, blank ones left out, each with its 1-based
// number in the file; the first is the header.
class TraceLinter {
 public:
  explicit TraceLinter(std::string_view name) : name_(name) {}
  void Line(std::string_view line, std::size_t line_no);
  // The problems so far (format errors and secrets).
  std::size_t problem_count() const { return report_.problems.size(); }
  // The report; a linter given no line reports the empty trace.
  LintReport Finish() &&;

 private:
  std::string name_;
  LintReport report_;
  bool have_header_ = false;
};

}  // namespace llmconform::mockllm
