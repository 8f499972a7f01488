// A Markdown report (report.md) that reads well on GitHub (a PR comment, a
// job summary) and as plain text:
//
//   # llmconform conformance report
//   verdict, counts, tool version, start time, duration
//   ## Summary          a table a protocol: scenarios and checks by outcome
//   ## <protocol>       one table a protocol: scenario, provider, outcome,
//                       checks by outcome, time
//   ## Failures and errors
//   ### <scenario> · <rule>   the message, the catalogue's rule text, where,
//                       the scenario file and trace, then expected and actual
//                       in fenced blocks
//
// Every text from results is escaped (markdown.h), so messages holding
// `<think>`, `*` or `|` render as written.
#pragma once

#include <ostream>
#include <string>

#include "reports/reporter.h"

namespace llmconform::reports {

std::string RenderMarkdown(const RunResult& run);

// Writes RenderMarkdown to the stream at OnRunEnd.
class MarkdownReporter final : public CumulativeReporter {
 public:
  explicit MarkdownReporter(std::ostream& out) : CumulativeReporter(out, RenderMarkdown) {}
};

}  // namespace llmconform::reports
