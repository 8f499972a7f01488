// `llmconform merge` (harness/commands/command.h).
#include "harness/merge.h"

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>
#include <vector>

#include "base/format.h"
#include "harness/commands/command.h"
#include "harness/commands/report_options.h"
#include "reports/reporter.h"

namespace llmconform::harness {
namespace {

class MergeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override {
    app.add_option("reports", files_, "the report.json of each shard (`run --shard K/N`)")
        ->required();
    reports_.Setup(app);
    baseline_.Setup(app);
    app.footer(
        "Writes the reports one run of every shard's scenarios would have written, and exits as "
        "that run would\n(0 conformant, 1 failures, 3 harness errors). Refuses reports of "
        "different specs or fixtures\n(their spec_hash), of different llmconform versions, or "
        "that share a scenario (exit 2).");
  }

  int Run() override {
    std::vector<NamedReport> loaded;
    for (const auto& file : files_) {
      auto report = LoadReport(file);
      if (!report) {
        std::cerr << "llmconform merge: " << report.error().message << '\n';
        return kExitUsage;
      }
      loaded.push_back(std::move(*report));
    }
    auto merged = MergeReports(loaded);
    if (!merged) {
      std::cerr << "llmconform merge: " << merged.error().message << '\n';
      return kExitUsage;
    }
    if (!baseline_.Load("merge")) return kExitUsage;
    reports::MultiReporter fan;
    if (auto built = reports_.Build(fan); !built) {
      std::cerr << "llmconform merge: " << built.error().message << '\n';
      return kExitUsage;
    }
    reports::ReplayRun(*merged, Format("{} shard reports", files_.size()), fan);
    if (!baseline_.AddDiff("merge", *merged, reports_)) return kExitUsage;
    if (!reports_.WriteFiles("merge")) return kExitInternal;
    return merged->ExitCode();
  }

 private:
  std::vector<fs::path> files_;
  ReportOptions reports_;
  BaselineOption baseline_;
};

}  // namespace

std::unique_ptr<Command> MakeMergeCommand() { return std::make_unique<MergeCommand>(); }

}  // namespace llmconform::harness
