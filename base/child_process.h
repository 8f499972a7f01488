// A command run as `/bin/sh -c COMMAND` in a process group of its own, with
// pipes to its stdin, stdout and stderr: the one way llmconform starts a
// client (`run --client-cmd`) or a SUT (`check --sut`). Its group is watched
// (base/child_groups.h), so a signal that ends llmconform kills it, and it
// is killed whole when the command ends, normally or not: no process the
// command started outlives it unless it left the group (setsid).
#pragma once

#include <sys/types.h>

#include <chrono>
#include <cstddef>
#include <expected>
#include <filesystem>
#include <string>
#include <vector>

#include "base/error.h"
#include "base/file.h"

namespace llmconform {

struct ChildCommand {
  std::string command;                // run as /bin/sh -c COMMAND
  std::vector<std::string> env;       // NAME=VALUE each, added to ours (or replacing ours)
  std::filesystem::path working_dir;  // "": ours
  bool stdin_pipe = false;            // false: stdin is /dev/null
  bool stderr_apart = false;          // false: stderr goes into stdout's pipe
  // Whether what the shell left running in its group is killed when it ends
  // of itself (a skill's terminal leaves background jobs be). Kill() kills
  // the group whatever this says.
  bool kill_group_at_end = true;
};

// This process's environment, with each NAME=VALUE of `add` added or
// replacing ours of the same NAME: what a child started here sees.
std::vector<std::string> EnvironmentWith(const std::vector<std::string>& add);

class ChildProcess {
 public:
  // Starts `command` (posix_spawn: no copy of this process is made, however
  // large), in a process group of its own, with no signal blocked and SIGPIPE,
  // SIGINT and SIGTERM at their defaults. Error (kIo): a pipe could not be
  // made or /bin/sh could not be started (the reason's errno); a shell that
  // cannot run the command exits with 127 like any shell. A working_dir that
  // cannot be entered is a command that fails: exit status 126, "cannot enter
  // the working folder" on its stderr.
  static std::expected<ChildProcess, Error> Start(const ChildCommand& command);

  ChildProcess(ChildProcess&& other) noexcept;
  ChildProcess& operator=(ChildProcess&& other) noexcept;
  ChildProcess(const ChildProcess&) = delete;
  ChildProcess& operator=(const ChildProcess&) = delete;
  ~ChildProcess();  // Kill()

  pid_t pid() const { return pid_; }
  // Our ends of its pipes, non-blocking and close-on-exec; -1 when it has
  // none (see ChildCommand) or it was closed.
  int stdin_fd() const { return in_.get(); }
  int stdout_fd() const { return out_.get(); }
  int stderr_fd() const { return err_.get(); }
  void CloseStdin() { in_.Close(); }
  void CloseStdout() { out_.Close(); }
  void CloseStderr() { err_.Close(); }

  // Whether the shell has ended. The first time it is seen ended, every
  // process still in its group (a background job it left) is killed before
  // the shell is reaped (so its group id cannot be reused in between; unless
  // ChildCommand::kill_group_at_end is false), and its wait status is kept.
  // Never blocks.
  bool Ended();
  // Kills the whole group now and reaps the shell; nothing if it was reaped.
  void Kill();
  // The shell's wait status (waitpid) once Ended() or Kill(); 0 before.
  int status() const { return status_; }

 private:
  ChildProcess() = default;
  void Reap(bool kill_group);

  pid_t pid_ = -1;  // -1 once reaped
  bool kill_group_at_end_ = true;
  int status_ = 0;
  FileDescriptor in_, out_, err_;
};

// How much of a child's output RunToEnd keeps: at most `max_bytes`, the first
// ones (kHead) or the last ones (kTail); the rest is read and dropped.
struct OutputLimit {
  enum class Keep { kHead, kTail };
  std::size_t max_bytes = 0;
  Keep keep = Keep::kHead;
};

struct ChildRun {
  int status = 0;          // the shell's wait status (ChildProcess::status)
  bool timed_out = false;  // it was killed, group and all, at the deadline
  std::string output;      // its stdout (and stderr, unless apart), within the limit
};

// Runs `command` to its end: reads its stdout as it comes, kills its whole
// group when `timeout` has passed. Once the shell has ended, what is still in
// the pipe is read until the pipe has been quiet for `quiet_after_end` (a
// process that left the group, or a background job left running, may hold it;
// zero: what is there now), and never past the deadline. Error (kIo): it could
// not be started.
std::expected<ChildRun, Error> RunToEnd(const ChildCommand& command,
                                        std::chrono::milliseconds timeout, OutputLimit limit,
                                        std::chrono::milliseconds quiet_after_end = {});

}  // namespace llmconform
