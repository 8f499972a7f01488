#include "reports/json_lines_reporter.h"

#include <nlohmann/json.hpp>

#include "reports/json_reporter.h"

namespace llmconform::reports {
namespace {

void WriteLine(std::ostream& out, const nlohmann::json& event) {
  out << DumpJson(event, -1) << '\n';
  out.flush();
}

}  // namespace

void JsonLinesReporter::OnRunStart(const RunStartInfo& info) {
  WriteLine(out_, {{"event", "run_start"},
                   {"tool_version", info.tool_version},
                   {"started_at", info.started_at},
                   {"scenario_count", info.scenario_count},
                   {"spec_dir", info.spec_dir}});
}

void JsonLinesReporter::OnScenarioStart(const ScenarioInfo& scenario) {
  nlohmann::json event = ScenarioInfoToJson(scenario);
  event["event"] = "scenario_start";
  WriteLine(out_, event);
}

void JsonLinesReporter::OnCheckResult(const ScenarioInfo& scenario, const CheckResult& result) {
  nlohmann::json event = CheckToJson(result);
  event["event"] = "check";
  event["protocol"] = scenario.protocol;
  event["scenario"] = scenario.name;
  WriteLine(out_, event);
}

void JsonLinesReporter::OnScenarioEnd(const ScenarioResult& result) {
  WriteLine(out_, {{"event", "scenario_end"},
                   {"protocol", result.info.protocol},
                   {"name", result.info.name},
                   {"outcome", OutcomeName(result.Overall())},
                   {"duration_ms", result.duration_ms},
                   {"checks", TotalsToJson(result.CheckTotals())}});
}

void JsonLinesReporter::OnRunEnd(const RunResult& run) {
  WriteLine(out_, {{"event", "run_end"},
                   {"duration_ms", run.duration_ms},
                   {"exit_code", run.ExitCode()},
                   {"totals",
                    {{"scenarios", TotalsToJson(run.ScenarioTotals())},
                     {"checks", TotalsToJson(run.CheckTotals())}}}});
}

}  // namespace llmconform::reports
