// `llmconform judge` (harness/commands/command.h).
#include <sys/ioctl.h>
#include <unistd.h>

#include <CLI/CLI.hpp>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <ctime>
#include <iostream>
#include <memory>
#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "base/atomic_file.h"
#include "base/format.h"
#include "base/json_read.h"
#include "harness/commands/command.h"
#include "harness/commands/report_options.h"
#include "harness/data_dir.h"
#include "harness/dialect_cmd.h"
#include "harness/merge.h"
#include "harness/oracle.h"
#include "harness/parallel.h"
#include "harness/probe.h"
#include "harness/rule_index.h"
#include "harness/runner.h"
#include "harness/scenario.h"
#include "harness/spec_hash.h"
#include "harness/sse_check.h"
#include "harness/suites/registry.h"
#include "reports/baseline.h"
#include "reports/registry.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

class JudgeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("--specs", specs_, "folder of specs/<protocol>/")->capture_default_str();
    app.add_option("--scenario", scenario_,
                   "the scenario, as <protocol>/<name> (see `llmconform list`)")
        ->required();
    app.add_option("--journal", journal_,
                   "mockllm's journal of your client's traffic (mockllm serve --journal FILE)")
        ->required();
    app.add_option("--outputs", outputs_,
                   "optional JSON of what your client produced, in the suite's output shape");
    reports_.Setup(app);
    app.footer(
        "Judges another implementation by the same rules as the reference:\n"
        "  mockllm serve --traces fixtures/synthesized/multiturn-s1-standard-assembly.trace.jsonl "
        "--journal j.json\n"
        "  (point your client at the printed URL + /t/<trace id>/v1, run it, stop mockllm)\n"
        "  llmconform judge --scenario multiturn/s1-standard-assembly --journal j.json\n"
        "Rules that need outputs the journal cannot show are skipped unless --outputs gives them.\n"
        "A request whose body the journal's bounds cut (\"body_cut\") cannot be judged (exit 2):\n"
        "give mockllm serve --journal-whole-bodies when your client sends strings over 64 KiB.\n"
        "Nor can a journal whose limits dropped requests (\"dropped_before\", exit 2): raise\n"
        "mockllm serve --journal-limit and --journal-max-bytes.\n"
        "A file that is not such a journal (an entry without a \"request\" object, a field of\n"
        "another type than mockllm writes) is refused with where and what (exit 2);\n"
        "docs/gate.md says what an entry holds.");
  }

  int Run() override {
    auto specs = LoadSpecs(specs_);
    if (!specs) {
      std::cerr << specs.error().message << '\n';
      return kExitUsage;
    }
    const Scenario* scenario = nullptr;
    for (const auto& s : specs->scenarios) {
      if (s.protocol + "/" + s.name == scenario_) scenario = &s;
    }
    if (!scenario) {
      std::cerr << "llmconform judge: --scenario '" << scenario_
                << "': no such scenario (see `llmconform list`)\n";
      return kExitUsage;
    }
    Observation obs;
    auto journal_text = ReadFile(journal_);
    if (!journal_text) {
      std::cerr << "llmconform judge: --journal " << journal_text.error().message << '\n';
      return kExitUsage;
    }
    auto journal = ParseJournal(journal_.string(), *journal_text);
    if (!journal) {
      std::cerr << "llmconform judge: " << journal.error().message << '\n';
      return kExitUsage;
    }
    obs.journal = std::move(*journal);
    if (obs.journal.empty()) {
      std::cerr << "llmconform judge: " << journal_.string()
                << ": no requests were journaled (did the client reach mockllm?)\n";
      return kExitUsage;
    }
    // A body mockllm's journal bounds cut cannot be judged by its content,
    // nor a client by a journal that lost some of its requests.
    if (auto why = UnjudgeableJournal(obs.journal)) {
      std::cerr << "llmconform judge: " << journal_.string() << ": " << why->message
                << (why->body_cut
                        ? "; serve with --journal-whole-bodies to judge it\n"
                        : " for its limits; serve with a larger --journal-limit and "
                          "--journal-max-bytes (or POST /__admin/reset between clients) to judge "
                          "every request\n");
      return kExitUsage;
    }
    if (!outputs_.empty()) {
      auto text = ReadFile(outputs_);
      auto doc = text ? ReadJson(outputs_.string(), *text)
                      : std::expected<Json, Error>(std::unexpected(text.error()));
      if (!doc) {
        std::cerr << "llmconform judge: --outputs " << doc.error().message << '\n';
        return kExitUsage;
      }
      obs.outputs = std::move(*doc);
    }
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform judge: " << built.error().message << '\n';
      return kExitUsage;
    }
    RunOptions options;
    options.spec_dir = specs_.string();
    options.source_root = DefaultSourceRoot(specs_);
    options.tool_version = LLMCONFORM_VERSION;
    reports::RunResult run = JudgeObservation(*specs, *scenario, obs, options, fan);
    if (!reports_.WriteFiles("judge")) return kExitInternal;
    return run.ExitCode();
  }

 private:
  fs::path specs_ = DefaultSpecsDir();
  std::string scenario_;
  fs::path journal_;
  fs::path outputs_;
  ReportOptions reports_;
};

}  // namespace

std::unique_ptr<Command> MakeJudgeCommand() { return std::make_unique<JudgeCommand>(); }

}  // namespace llmconform::harness
