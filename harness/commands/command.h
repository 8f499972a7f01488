// The subcommands of `llmconform` (harness/cli.cpp holds their table): one
// file each under harness/commands/, one shape — a Command registers its
// options on its CLI11 subcommand, then runs when chosen and returns the
// exit code (base/exit_code.h).
#pragma once

#include <CLI/CLI.hpp>
#include <filesystem>
#include <memory>
#include <string>

#include "base/exit_code.h"
#include "harness/scenario.h"

namespace llmconform::harness {

namespace fs = std::filesystem;

class Command {
 public:
  virtual ~Command() = default;
  // Registers the options and help of the subcommand on `app`.
  virtual void Setup(CLI::App& app) = 0;
  // Runs it once the command line is parsed; the process's exit code.
  virtual int Run() = 0;
};

// Whether a scenario of `specs` matches the --filter glob `filter`.
bool AnyMatches(const SpecSet& specs, const std::string& filter);
// The folder scenario trace paths are relative to by default: the parent
// of the --specs folder.
fs::path DefaultSourceRoot(const fs::path& specs);

std::unique_ptr<Command> MakeRunCommand();
std::unique_ptr<Command> MakeMergeCommand();
std::unique_ptr<Command> MakeJudgeCommand();
std::unique_ptr<Command> MakeSseCheckCommand();
std::unique_ptr<Command> MakeListCommand();
std::unique_ptr<Command> MakeRefCommand();
std::unique_ptr<Command> MakeCheckCommand();
std::unique_ptr<Command> MakeDialectCommand();  // harness/dialect_cmd.h
std::unique_ptr<Command> MakeProbeCommand();    // harness/probe.h

}  // namespace llmconform::harness
