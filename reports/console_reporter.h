// Progress and results for a person at a terminal (or reading a CI log).
//
// Per scenario one line, `[3/12] skill/git-quick-commit … pass`. With `tty`
// the line is written when the scenario starts and rewritten in place (\r and
// erase-line) by the next one, so a passing run shows a single moving line;
// with `timing` too its counter also shows the time since the run started and
// an estimate of the time left (`[3/12 0:04 ETA 0:12]`, see ProgressTiming);
// without `tty` each line is written whole when the scenario ends, with no
// times, so logs of equal runs are equal. A scenario
// that fails or errs keeps its line, followed by each failing or erring check
// (rule id, message, then expected/actual/where) and the files that reproduce
// it. At the end: a table per protocol of scenario and check counts by
// outcome, and a one-line verdict with the time taken.
//
// All text from results goes through ReadableText, so evidence cannot move the
// cursor or change colours. The stream is flushed after every write.
#pragma once

#include <chrono>
#include <ostream>
#include <string>

#include "reports/reporter.h"

namespace llmconform::reports {

struct ConsoleOptions {
  bool color = false;  // ANSI colours and bold
  bool tty = false;    // rewrite the progress line in place
  // Terminal columns, to keep the in-place line from wrapping (a wrapped line
  // cannot be erased); 0 when unknown.
  int width = 0;
  bool timing = false;  // elapsed time and ETA in the in-place line (tty only)
};

// What the CLI should pass for a stream: on a terminal, colour and the
// in-place line with timing — unless NO_COLOR (no-color.org) or CI is set and
// not empty, which ask for plain lines without colour, as when not a terminal.
// `no_color_env` is getenv("NO_COLOR"), `ci_env` getenv("CI").
ConsoleOptions ConsoleOptionsFor(bool is_terminal, const char* no_color_env, const char* ci_env,
                                 int width);

// "M:SS elapsed" and "ETA M:SS" (H:MM:SS from an hour) for `done` of `total`
// scenarios finished after `elapsed_ms`: "0:04 ETA 0:12"; the ETA is the mean
// time per finished scenario times those left, "ETA -:--" before any finished.
std::string ProgressTiming(double elapsed_ms, int done, int total);

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
  int finished_ = 0;
  std::chrono::steady_clock::time_point run_start_{};
  bool line_open_ = false;  // a progress line without its newline is on screen
};

}  // namespace llmconform::reports
