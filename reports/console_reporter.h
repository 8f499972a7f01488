// Progress and results for a person at a terminal (or reading a CI log).
//
// Per scenario one line, `[3/12] skill/git-quick-commit … pass`. With `tty`
// the line is written when the scenario starts and rewritten in place (\r and
// erase-line) by the next one, so a passing run shows a single moving line;
// without it each line is written whole when the scenario ends. A scenario
// that fails or errs keeps its line, followed by each failing or erring check
// (rule id, message, then expected/actual/where) and the files that reproduce
// it. At the end: a table per protocol of scenario and check counts by
// outcome, and a one-line verdict with the time taken.
//
// All text from results goes through ReadableText, so evidence cannot move the
// cursor or change colours. The stream is flushed after every write.
#pragma once

#include <ostream>

#include "reports/reporter.h"

namespace llmconform::reports {

struct ConsoleOptions {
  bool color = false;  // ANSI colours and bold
  bool tty = false;    // rewrite the progress line in place
  // Terminal columns, to keep the in-place line from wrapping (a wrapped line
  // cannot be erased); 0 when unknown.
  int width = 0;
};

// What the CLI should pass for a stream: `tty` when it is a terminal; colour
// only on a terminal and when NO_COLOR is unset or empty (no-color.org).
// `no_color_env` is getenv("NO_COLOR").
ConsoleOptions ConsoleOptionsFor(bool is_terminal, const char* no_color_env, int width);

class ConsoleReporter final : public Reporter {
 public:
  ConsoleReporter(std::ostream& out, ConsoleOptions options) : out_(out), options_(options) {}

  void OnRunStart(const RunStartInfo& info) override;
  void OnScenarioStart(const ScenarioInfo& scenario) override;
  void OnScenarioEnd(const ScenarioResult& result) override;
  void OnRunEnd(const RunResult& run) override;

 private:
  std::string Paint(std::string_view sgr, std::string_view text) const;
  std::string ProgressLine(const ScenarioInfo& scenario) const;
  void WriteFailures(const ScenarioResult& result);
  void WriteSummary(const RunResult& run);

  std::ostream& out_;
  ConsoleOptions options_;
  int scenario_count_ = 0;
  int started_ = 0;
  bool line_open_ = false;  // a progress line without its newline is on screen
};

}  // namespace llmconform::reports
