// The canonical report, `llmconform-report/1`: everything a run found, as one
// JSON document (report.json). Every other format can be rebuilt from it
// (ReportFromJson, then ReplayRun), and baselines are kept in it.
//
//   {"format":"llmconform-report/1","tool_version","started_at","duration_ms",
//    "spec_hash"? (when known),"shard"? ("K/N", a shard's report only),
//    "totals":{"scenarios":{"pass","fail","skip","error","total"},"checks":{…}},
//    "rules":[{"id","protocol","source","text","severity"}],
//    "scenarios":[{"protocol","name","description","file","trace","provider",
//                  "tags"? (only when there are any),"dialect"? (run --dialects),
//                  "deviations"? (run --dialects, a failed scenario: the deviations
//                  of its dialect that changed its replies),"outcome","duration_ms",
//                  "checks":[{"rule","outcome","message",
//                             "evidence"?:{"expected","actual","where"}}]}]}
//
// Keys are sorted in every object, so equal runs give byte-equal reports.
// Arrays keep run order. "outcome" of a scenario and "totals" are derived
// (ScenarioResult::Overall, RunResult::*Totals); readers may rely on them, and
// ReportFromJson ignores them. Invalid UTF-8 in any text is written as U+FFFD.
#pragma once

#include <expected>
#include <nlohmann/json.hpp>
#include <ostream>
#include <string>

#include "base/error.h"
#include "reports/reporter.h"

namespace llmconform::reports {

inline constexpr std::string_view kReportFormat = "llmconform-report/1";

nlohmann::json ReportToJson(const RunResult& run);

// The pieces of the report, also the payloads of the JSON lines events.
nlohmann::json TotalsToJson(const Totals& t);  // {"pass","fail","skip","error","total"}
nlohmann::json CheckToJson(const CheckResult& c);
nlohmann::json ScenarioInfoToJson(const ScenarioInfo& info);  // without outcome, time, checks
nlohmann::json ScenarioToJson(const ScenarioResult& s);

// The report as text: ReportToJson dumped with two-space indentation and a
// final newline.
std::string RenderJsonReport(const RunResult& run);

// Reads a report back (a baseline, a saved run). Errors say where, as a path
// into the document: `scenarios[2].checks[0]: field "rule": expected string,
// got number`; a "format" other than llmconform-report/1 is an error.
std::expected<RunResult, Error> ReportFromJson(const nlohmann::json& report);

// Writes RenderJsonReport to the stream at OnRunEnd.
class JsonReporter final : public CumulativeReporter {
 public:
  explicit JsonReporter(std::ostream& out) : CumulativeReporter(out, RenderJsonReport) {}
};

// nlohmann::json::dump with `indent` (-1: compact) that writes invalid UTF-8
// as U+FFFD instead of throwing. Every JSON renderer of this folder uses it.
std::string DumpJson(const nlohmann::json& j, int indent);

}  // namespace llmconform::reports
