// Test support: the fixed run every golden file is rendered from, and the
// golden-file comparison.
#pragma once

#include <sstream>
#include <string>
#include <string_view>

#include "reports/reporter.h"
#include "reports/result.h"

namespace llmconform::reports::testing {

// Two protocols (multiturn, skill), three providers; scenarios that pass, one
// that fails with evidence (text that is hostile to Markdown and HTML), one
// with a skip beside a pass, one skipped whole, one erring. Times are fixed.
RunResult SampleRun();

// What a reporter R, constructed as R(stream, args...), writes for the whole
// event sequence of `run`.
template <typename R, typename... Args>
std::string RenderWith(const RunResult& run, const Args&... args) {
  std::ostringstream out;
  R reporter(out, args...);
  ReplayRun(run, "specs", reporter);
  return out.str();
}

// Compares `actual` with reports/testdata/<name> as a test expectation. With
// LLMCONFORM_UPDATE_GOLDEN=1 in the environment it rewrites the file instead
// (and the test still passes): review the diff before committing.
void ExpectMatchesGolden(std::string_view name, const std::string& actual);

// The text of reports/testdata/<name>; a test failure when it is missing.
std::string ReadGolden(std::string_view name);

}  // namespace llmconform::reports::testing
