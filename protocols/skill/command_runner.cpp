#include "protocols/skill/command_runner.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>

#include "base/format.h"

namespace llmconform::skill {
namespace {

using Clock = std::chrono::steady_clock;

class Fd {
 public:
  explicit Fd(int fd = -1) : fd_(fd) {}
  Fd(const Fd&) = delete;
  Fd& operator=(const Fd&) = delete;
  ~Fd() { Close(); }
  int get() const { return fd_; }
  void Close() {
    if (fd_ >= 0) ::close(fd_);
    fd_ = -1;
  }

 private:
  int fd_;
};

std::unexpected<Error> SysError(std::string_view what) {
  return std::unexpected(Error{Format("run command: {}: {}", what, std::strerror(errno))});
}

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
  // Everything the child needs is made before fork: after it only
  // async-signal-safe calls.
  const std::string cmd(command);
  const std::string dir = working_dir_.string();
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SysError("pipe");
  Fd read_end(fds[0]), write_end(fds[1]);
  const pid_t pid = ::fork();
  if (pid < 0) return SysError("fork");
  if (pid == 0) {
    ::setpgid(0, 0);
    const int null_in = ::open("/dev/null", O_RDONLY | O_CLOEXEC);
    if (null_in < 0 || ::dup2(null_in, 0) < 0 || ::dup2(fds[1], 1) < 0 || ::dup2(fds[1], 2) < 0) {
      ::_exit(126);
    }
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) {
      static constexpr char kMsg[] = "skill command runner: cannot enter the working folder\n";
      (void)!::write(2, kMsg, sizeof kMsg - 1);
      ::_exit(126);
    }
    ::execl("/bin/sh", "sh", "-c", cmd.c_str(), static_cast<char*>(nullptr));
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from the parent, so the group exists before any kill
  write_end.Close();
  ::fcntl(read_end.get(), F_SETFL, ::fcntl(read_end.get(), F_GETFL) | O_NONBLOCK);

  CommandResult result;
  const auto deadline = Clock::now() + timeout_;
  bool open = true;
  int status = 0;
  bool exited = false;
  while (true) {
    if (open) open = Drain(read_end.get(), result.output, max_output_);
    if (!exited) {
      const pid_t w = ::waitpid(pid, &status, WNOHANG);
      if (w == pid) exited = true;
    }
    if (exited) {
      if (open) Drain(read_end.get(), result.output, max_output_);
      break;
    }
    const auto now = Clock::now();
    if (now >= deadline) {
      ::kill(-pid, SIGKILL);
      ::waitpid(pid, &status, 0);
      result.timed_out = true;
      break;
    }
    // Wake for output, or every 20 ms to see whether the shell has exited.
    const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline - now);
    const int wait_ms = static_cast<int>(std::clamp<long long>(left.count(), 1, 20));
    if (open) {
      pollfd p{read_end.get(), POLLIN, 0};
      ::poll(&p, 1, wait_ms);
    } else {
      ::usleep(static_cast<useconds_t>(wait_ms) * 1000);
    }
  }
  result.exit_code = ExitCode(status);
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
