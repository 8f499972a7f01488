#include "protocols/skill/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/child_process.h"
#include "base/format.h"

namespace llmconform::skill {
namespace {

using Clock = std::chrono::steady_clock;

int ExitCode(int status) {
  if (WIFEXITED(status)) return WEXITSTATUS(status);
  if (WIFSIGNALED(status)) return 128 + WTERMSIG(status);
  return -1;
}

// Reads what the pipe holds now without blocking; false at end of file.
bool Drain(int fd, std::string& out, std::size_t max_output) {
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      const std::size_t room = max_output > out.size() ? max_output - out.size() : 0;
      out.append(buf, std::min(room, static_cast<std::size_t>(n)));
      continue;
    }
    if (n == 0) return false;
    if (errno == EINTR) continue;
    return true;  // EAGAIN: nothing more for now
  }
}

}  // namespace

ShellCommandRunner::ShellCommandRunner(std::filesystem::path working_dir,
                                       std::chrono::milliseconds timeout, std::size_t max_output)
    : working_dir_(std::move(working_dir)), timeout_(timeout), max_output_(max_output) {}

std::expected<CommandResult, Error> ShellCommandRunner::Run(std::string_view command) {
  auto child = ChildProcess::Start(
      {.command = std::string(command), .working_dir = working_dir_, .kill_group_at_end = false});
  if (!child) return std::unexpected(Error{Format("run command: {}", child.error().message)});
  CommandResult result;
  const auto deadline = Clock::now() + timeout_;
  bool open = true;
  while (true) {
    if (open) open = Drain(child->stdout_fd(), result.output, max_output_);
    if (child->Ended()) {
      if (open) Drain(child->stdout_fd(), result.output, max_output_);
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      child->Kill();
      result.timed_out = true;
      break;
    }
    // Wake for output, or every 20 ms to see whether the shell has exited.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const int wait_ms = static_cast<int>(std::clamp<long long>(left.count(), 1, 20));
    if (open) {
      pollfd p{child->stdout_fd(), POLLIN, 0};
      ::poll(&p, 1, wait_ms);
    } else {
      ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
  }
  result.exit_code = ExitCode(child->status());
  return result;
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
