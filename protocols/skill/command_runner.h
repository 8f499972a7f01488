// Running the commands a skill asks for (seed 000 §5.1, §7 waiting_cmd).
#pragma once

#include <chrono>
#include <cstddef>
#include <deque>
#include <expected>
#include <filesystem>
#include <string>
#include <string_view>

#include "base/error.h"

namespace llmconform::skill {

struct CommandResult {
  std::string output;  // stdout and stderr interleaved, as a terminal shows them
  int exit_code = 0;   // the shell's status; 128 + N when killed by signal N
  bool timed_out = false;
};

class CommandRunner {
 public:
  virtual ~CommandRunner() = default;
  // Errors: the command could not be started at all (or, for a scripted
  // runner, the script has no output left). A command that fails or times
  // out is a result, not an Error.
  virtual std::expected<CommandResult, Error> Run(std::string_view command) = 0;
};

// Runs `/bin/sh -c <command>` in `working_dir`, stdin from /dev/null, stdout
// and stderr into one pipe. The shell leads a new process group; when
// `timeout` passes the whole group gets SIGKILL and the result is marked
// timed_out with the output read so far. Output beyond `max_output` bytes is
// read and discarded. Once the shell has exited, what is already in the pipe
// is read and background children are left running. Thread-compatible; one
// Run at a time per instance.
class ShellCommandRunner : public CommandRunner {
 public:
  ShellCommandRunner(std::filesystem::path working_dir, std::chrono::milliseconds timeout,
                     std::size_t max_output = 1 << 20);
  std::expected<CommandResult, Error> Run(std::string_view command) override;

 private:
  std::filesystem::path working_dir_;
  std::chrono::milliseconds timeout_;
  std::size_t max_output_;
};

// Hands out prepared results in order, whatever the command.
class ScriptedCommandRunner : public CommandRunner {
 public:
  explicit ScriptedCommandRunner(std::deque<CommandResult> results);
  // Error when the script is used up: "scripted command runner: no output left
  // for command #3 (\"ls\")".
  std::expected<CommandResult, Error> Run(std::string_view command) override;
  std::size_t remaining() const { return results_.size(); }

 private:
  std::deque<CommandResult> results_;
  int runs_ = 0;
};

}  // namespace llmconform::skill
