// `llmconform merge`: shard reports (report.json of `run --shard K/N`) back
// into the report of one run.
#pragma once

#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "reports/result.h"

namespace llmconform::harness {

struct NamedReport {
  std::string name;  // the file it came from, for messages
  reports::RunResult run;
};

// Reads one report.json. Errors: "FILE: cannot read: …", "FILE: not JSON",
// "FILE: scenarios[2]: …" (ReportFromJson's location).
std::expected<NamedReport, Error> LoadReport(const std::filesystem::path& file);

// Whether `a` runs before `b` in one run: spec order, i.e. by protocol, then
// by scenario file name (LoadSpecs sorts the same way).
bool RunsBefore(const reports::ScenarioInfo& a, const reports::ScenarioInfo& b);

// One run's result from its shards' results. Every report must carry the same
// spec_hash (not empty), tool version and rule catalogue, and no scenario may
// appear twice. The merged run has the scenarios in run order, the earliest
// started_at, the longest duration_ms (the shards' wall time when they ran side
// by side), the shared spec_hash and no shard. Errors name the file:
//   "b.json: spec_hash sha256:12… differs from a.json's sha256:9a…: the reports
//    judge different specs or fixtures"
//   "b.json: scenario skill/x is also in a.json"
std::expected<reports::RunResult, Error> MergeReports(const std::vector<NamedReport>& reports);

}  // namespace llmconform::harness
