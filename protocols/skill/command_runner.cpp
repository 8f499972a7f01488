#include "protocols/skill/command_runner.h"

#include <sys/wait.h>

#include "base/child_process.h"
#include "base/format.h"

namespace llmconform::skill {
namespace {

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

}  // namespace

ShellCommandRunner::ShellCommandRunner(std::filesystem::path working_dir,
                                       std::chrono::milliseconds timeout, std::size_t max_output)
    : working_dir_(std::move(working_dir)), timeout_(timeout), max_output_(max_output) {}

std::expected<CommandResult, Error> ShellCommandRunner::Run(std::string_view command) {
  auto run = RunToEnd(
      {.command = std::string(command), .working_dir = working_dir_, .kill_group_at_end = false},
      timeout_, {.max_bytes = max_output_, .keep = OutputLimit::Keep::kHead});
  if (!run) return std::unexpected(Error{Format("run command: {}", run.error().message)});
  return CommandResult{.output = std::move(run->output),
                       .exit_code = ExitCode(run->status),
                       .timed_out = run->timed_out};
}

ScriptedCommandRunner::ScriptedCommandRunner(std::deque<CommandResult> results)
    : results_(std::move(results)) {}

std::expected<CommandResult, Error> ScriptedCommandRunner::Run(std::string_view command) {
  ++runs_;
  if (results_.empty()) {
    return std::unexpected(Error{Format(
        "scripted command runner: no output left for command #{} (\"{}\")", runs_, command)});
  }
  CommandResult r = std::move(results_.front());
  results_.pop_front();
  return r;
}

}  // namespace llmconform::skill
