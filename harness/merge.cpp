#include "harness/merge.h"

#include <algorithm>
#include <map>

#include "base/json_read.h"
#include "base/format.h"
#include "harness/scenario.h"
#include "reports/json_reporter.h"

namespace llmconform::harness {
namespace {

namespace fs = std::filesystem;

std::string Short(const std::string& hash) {
  return hash.size() > 19 ? hash.substr(0, 19) + "…" : hash;
}

std::string FileName(const std::string& file) { return fs::path(file).filename().string(); }

}  // namespace

std::expected<NamedReport, Error> LoadReport(const fs::path& file) {
  auto text = ReadFile(file);
  if (!text) return std::unexpected(text.error());
  auto doc = ReadJsonOrDiscarded(*text);
  if (doc.is_discarded())
    return std::unexpected(
        Error{Format("{}: not JSON (expected an llmconform report.json)", file.string())});
  auto run = reports::ReportFromJson(doc);
  if (!run) return std::unexpected(Error{Format("{}: {}", file.string(), run.error().message)});
  return NamedReport{file.string(), std::move(*run)};
}

bool RunsBefore(const reports::ScenarioInfo& a, const reports::ScenarioInfo& b) {
  if (a.protocol != b.protocol) return a.protocol < b.protocol;
  const std::string fa = FileName(a.file), fb = FileName(b.file);
  return fa != fb ? fa < fb : a.name < b.name;
}

std::expected<reports::RunResult, Error> MergeReports(const std::vector<NamedReport>& reports) {
  if (reports.empty()) return std::unexpected(Error{"no reports to merge"});
  const NamedReport& first = reports.front();
  for (const NamedReport& r : reports) {
    if (r.run.spec_hash.empty()) {
      return std::unexpected(Error{
          Format("{}: no spec_hash in the report header (written by an llmconform before 0.1.0 or "
                 "by `judge`/`sse-check`): cannot tell which specs it judged",
                 r.name)});
    }
    if (r.run.spec_hash != first.run.spec_hash) {
      return std::unexpected(Error{Format(
          "{}: spec_hash {} differs from {}'s {}: the reports judge different specs or fixtures",
          r.name, Short(r.run.spec_hash), first.name, Short(first.run.spec_hash))});
    }
    if (r.run.tool_version != first.run.tool_version) {
      return std::unexpected(Error{Format("{}: written by llmconform {}, {} by {}", r.name,
                                          r.run.tool_version, first.name, first.run.tool_version)});
    }
    if (r.run.rules != first.run.rules) {
      return std::unexpected(
          Error{Format("{}: its rule catalogue differs from {}'s", r.name, first.name)});
    }
  }
  reports::RunResult merged;
  merged.tool_version = first.run.tool_version;
  merged.spec_hash = first.run.spec_hash;
  merged.rules = first.run.rules;
  merged.started_at = first.run.started_at;
  std::map<std::string, const std::string*> seen;  // scenario id → report name
  for (const NamedReport& r : reports) {
    if (!r.run.started_at.empty() &&
        (merged.started_at.empty() || r.run.started_at < merged.started_at))
      merged.started_at = r.run.started_at;
    merged.duration_ms = std::max(merged.duration_ms, r.run.duration_ms);
    for (const auto& s : r.run.scenarios) {
      auto [it, fresh] = seen.emplace(s.info.Id(), &r.name);
      if (!fresh) {
        return std::unexpected(
            Error{Format("{}: scenario {} is also in {}", r.name, s.info.Id(), *it->second)});
      }
      merged.scenarios.push_back(s);
    }
  }
  std::stable_sort(merged.scenarios.begin(), merged.scenarios.end(),
                   [](const auto& a, const auto& b) { return RunsBefore(a.info, b.info); });
  return merged;
}

}  // namespace llmconform::harness
