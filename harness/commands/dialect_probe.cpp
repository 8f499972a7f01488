// `llmconform dialect` and `llmconform probe`: their options and work live in
// harness/dialect_cmd.h and harness/probe.h; these give them the Command shape.
#include <memory>

#include "harness/commands/command.h"
#include "harness/dialect_cmd.h"
#include "harness/probe.h"

namespace llmconform::harness {
namespace {

// ---- dialect (harness/dialect_cmd.h) --------------------------------------

class DialectCommand final : public Command {
 public:
  void Setup(CLI::App& app) override { SetupDialect(app, args_); }
  int Run() override { return RunDialect(args_); }

 private:
  DialectArgs args_;
};

// ---- probe (harness/probe.h) -----------------------------------------------

class ProbeCommand final : public Command {
 public:
  void Setup(CLI::App& app) override { SetupProbe(app, args_); }
  int Run() override { return RunProbe(args_); }

 private:
  ProbeArgs args_;
};

}  // namespace

std::unique_ptr<Command> MakeDialectCommand() { return std::make_unique<DialectCommand>(); }
std::unique_ptr<Command> MakeProbeCommand() { return std::make_unique<ProbeCommand>(); }

}  // namespace llmconform::harness
