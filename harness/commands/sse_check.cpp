// `llmconform sse-check` (harness/commands/command.h).
#include "harness/sse_check.h"

#include <CLI/CLI.hpp>
#include <chrono>
#include <iostream>
#include <memory>
#include <string>

#include "harness/commands/command.h"
#include "harness/commands/report_options.h"
#include "harness/data_dir.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

class SseCheckCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("url", url_,
                   "the event stream, e.g. http://127.0.0.1:8080/api/v1/messages/ID/events")
        ->required();
    app.add_option("--request-id", request_id_,
                   "the X-Request-Id the events must carry as request_id");
    app.add_option("--timeout-ms", timeout_ms_,
                   "give up when the stream has not ended this long after connecting (a total "
                   "deadline, however slowly bytes arrive)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--max-events", max_events_,
                   "stop reading after this many events (the stream is then judged unterminated)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--max-bytes", max_bytes_,
                   "stop reading after this many body bytes (judged unterminated)")
        ->capture_default_str()
        ->check(CLI::PositiveNumber);
    app.add_option("--specs", specs_, "folder of specs/ (for the rule catalogue in reports)")
        ->capture_default_str();
    reports_.Setup(app);
    app.footer(
        "Connects to any GymBro-style event stream (status, content_delta, heartbeat, completed | "
        "error),\n"
        "applies every event-contract rule (specs/gymbro) and validates the joined reply as "
        "ThinkingML\n"
        "(specs/thinkingml). Exit 0 conformant, 1 a rule broken, 3 the stream could not be read.");
  }

  int Run() override {
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform sse-check: " << built.error().message << '\n';
      return kExitUsage;
    }
    SseCheckOptions options;
    if (!request_id_.empty()) options.request_id = request_id_;
    options.timeout = std::chrono::milliseconds(timeout_ms_);
    options.limits = {.max_events = max_events_, .max_bytes = max_bytes_};
    reports::RunResult run;
    run.tool_version = LLMCONFORM_VERSION;
    if (auto specs = LoadSpecs(specs_)) {
      for (const char* p : {"gymbro", "thinkingml"}) {
        if (auto it = specs->rules.find(p); it != specs->rules.end()) {
          run.rules.insert(run.rules.end(), it->second.begin(), it->second.end());
        }
      }
    }
    const auto t0 = std::chrono::steady_clock::now();
    fan.OnRunStart(reports::RunStartInfo{
        .tool_version = run.tool_version, .scenario_count = 1, .spec_dir = specs_.string()});
    reports::ScenarioResult result = SseCheck(url_, options);
    fan.OnScenarioStart(result.info);
    for (const auto& c : result.checks) fan.OnCheckResult(result.info, c);
    fan.OnScenarioEnd(result);
    run.scenarios.push_back(std::move(result));
    run.duration_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count();
    fan.OnRunEnd(run);
    if (!reports_.WriteFiles("sse-check")) return kExitInternal;
    return run.ExitCode();
  }

 private:
  std::string url_;
  std::string request_id_;
  long long timeout_ms_ = 120000;
  std::size_t max_events_ = StreamLimits{}.max_events;
  std::size_t max_bytes_ = StreamLimits{}.max_bytes;
  fs::path specs_ = DefaultSpecsDir();
  ReportOptions reports_;
};

}  // namespace

std::unique_ptr<Command> MakeSseCheckCommand() { return std::make_unique<SseCheckCommand>(); }

}  // namespace llmconform::harness
