#include "harness/cli.h"

#include <CLI/CLI.hpp>
#include <memory>
#include <string>
#include <utility>
#include <vector>

#include "harness/commands/command.h"
#include "harness/runner.h"
#include "harness/scenario.h"

#ifndef LLMCONFORM_VERSION
#define LLMCONFORM_VERSION "0.0.0"
#endif

namespace llmconform::harness {

bool AnyMatches(const SpecSet& specs, const std::string& filter) {
  for (const auto& s : specs.scenarios) {
    if (MatchesFilter(s, filter)) return true;
  }
  return false;
}

fs::path DefaultSourceRoot(const fs::path& specs) {
  const fs::path abs = fs::absolute(specs).lexically_normal();
  fs::path parent = abs.has_filename() ? abs.parent_path() : abs.parent_path().parent_path();
  return parent.empty() ? fs::path(".") : parent;
}

namespace {

struct CommandKind {
  const char* name;
  const char* description;
  std::unique_ptr<Command> (*make)();
};

constexpr CommandKind kCommands[] = {
    {"run", "Run the conformance scenarios and write reports", &MakeRunCommand},
    {"merge", "Merge shard reports (run --shard K/N) into the reports of one run",
     &MakeMergeCommand},
    {"judge", "Judge another implementation's traffic (a mockllm journal) by a scenario's rules",
     &MakeJudgeCommand},
    {"sse-check", "Judge a live GymBro-style SSE event stream by the gymbro and thinkingml rules",
     &MakeSseCheckCommand},
    {"list", "List scenarios (or, with --rules, the rule catalogue)", &MakeListCommand},
    {"ref", "Call a reference operation: JSON on stdin, JSON on stdout", &MakeRefCommand},
    {"check",
     "Differential property testing of your implementation (JSON lines) against the reference",
     &MakeCheckCommand},
    {"dialect", "List the provider deviations each recorded exchange shows", &MakeDialectCommand},
    {"probe",
     "Probe a live endpoint (Chat, Responses, Messages or Gemini API): features, deviations",
     &MakeProbeCommand},
};

}  // namespace

int Main(int argc, char** argv) {
  CLI::App app{
      "llmconform — record/replay conformance for LLM conversation protocols over "
      "OpenAI-compatible Chat "
      "Completions.\n\nIt replays recorded traces with mockllm, drives each protocol's reference "
      "client against "
      "them, evaluates every rule of specs/<protocol>/rules.json, and writes reports.",
      "llmconform"};
  app.set_version_flag("--version", "llmconform " LLMCONFORM_VERSION);
  app.require_subcommand(1);
  app.footer(
      "Examples:\n"
      "  llmconform run                         all bundled scenarios; reports in out/reports/\n"
      "  llmconform run --filter 'multiturn/*'  one protocol\n"
      "  llmconform run -j 4 --shard 1/2        half of them, four at a time\n"
      "  llmconform merge a/report.json b/report.json --out merged\n"
      "                                         one run's reports from shard reports\n"
      "  llmconform list --rules                every rule, with the code that decides it\n"
      "  llmconform judge --scenario multiturn/s1-standard-assembly --journal j.json\n"
      "                                         judge your own client's traffic\n"
      "  llmconform ref --list                  the JSON oracle's operations\n"
      "  llmconform sse-check URL --request-id ID   judge a live GymBro event stream\n"
      "  llmconform probe --base-url URL --model M  an endpoint's features and deviations\n\n"
      "Exit codes: 0 all conformant, 1 conformance failures, 2 usage or input error, 3 harness "
      "failure.");
  std::vector<std::pair<CLI::App*, std::unique_ptr<Command>>> commands;
  for (const auto& kind : kCommands) {
    CLI::App* sub = app.add_subcommand(kind.name, kind.description);
    auto command = kind.make();
    command->Setup(*sub);
    commands.emplace_back(sub, std::move(command));
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    const int code = app.exit(e);
    return code == 0 ? kExitOk : kExitUsage;
  }
  for (auto& [sub, command] : commands) {
    if (sub->parsed()) return command->Run();
  }
  return kExitUsage;
}

}  // namespace llmconform::harness
