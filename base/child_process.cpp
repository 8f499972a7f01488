#include "base/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string_view>
#include <utility>

#include "base/child_groups.h"
#include "base/format.h"

extern char** environ;

namespace llmconform {
namespace {

std::unexpected<Error> SysError(std::string_view what) {
  return std::unexpected(
      Error{Format("cannot start /bin/sh: {}: {}", what, std::strerror(errno)), ErrorKind::kIo});
}

std::string_view VarName(std::string_view var) { return var.substr(0, var.find('=')); }

// Ours, with `add` added or replacing ours of the same name.
std::vector<std::string> Environment(const std::vector<std::string>& add) {
  std::vector<std::string> vars;
  for (char** e = environ; *e; ++e) {
    const std::string_view var(*e);
    bool overridden = false;
    for (const auto& a : add) overridden |= VarName(var) == VarName(a);
    if (!overridden) vars.emplace_back(var);
  }
  vars.insert(vars.end(), add.begin(), add.end());
  return vars;
}

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Pipe {
  FileDescriptor read, write;
};

std::expected<Pipe, Error> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SysError("pipe");
  return Pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
}

}  // namespace

std::expected<ChildProcess, Error> ChildProcess::Start(const ChildCommand& command) {
  // Everything the child needs is made before fork: after it, only
  // async-signal-safe calls.
  std::vector<std::string> vars = Environment(command.env);
  std::vector<char*> envp;
  for (auto& v : vars) envp.push_back(v.data());
  envp.push_back(nullptr);
  const std::string dir = command.working_dir.string();
  char* const argv[] = {const_cast<char*>("sh"), const_cast<char*>("-c"),
                        const_cast<char*>(command.command.c_str()), nullptr};
  auto out = MakePipe();
  if (!out) return std::unexpected(out.error());
  Pipe in, err;
  if (command.stdin_pipe) {
    auto p = MakePipe();
    if (!p) return std::unexpected(p.error());
    in = std::move(*p);
  }
  if (command.stderr_apart) {
    auto p = MakePipe();
    if (!p) return std::unexpected(p.error());
    err = std::move(*p);
  }
  const int null_in = command.stdin_pipe ? -1 : ::open("/dev/null", O_RDONLY | O_CLOEXEC);
  if (!command.stdin_pipe && null_in < 0) return SysError("/dev/null");
  FileDescriptor null_guard(null_in);
  const pid_t pid = ::fork();
  if (pid < 0) return SysError("fork");
  if (pid == 0) {
    ::setpgid(0, 0);
    const int stdin_fd = command.stdin_pipe ? in.read.get() : null_in;
    const int stderr_fd = command.stderr_apart ? err.write.get() : out->write.get();
    if (::dup2(stdin_fd, 0) < 0 || ::dup2(out->write.get(), 1) < 0 || ::dup2(stderr_fd, 2) < 0)
      ::_exit(126);
    if (!dir.empty() && ::chdir(dir.c_str()) != 0) {
      static constexpr char kMsg[] = "cannot enter the working folder\n";
      (void)!::write(2, kMsg, sizeof kMsg - 1);
      ::_exit(126);
    }
    ::execve("/bin/sh", argv, envp.data());
    ::_exit(127);
  }
  ::setpgid(pid, pid);  // also from here, so that the group exists before any kill
  WatchChildGroup(pid);
  ChildProcess child;
  child.pid_ = pid;
  child.kill_group_at_end_ = command.kill_group_at_end;
  child.out_ = std::move(out->read);
  child.in_ = std::move(in.write);
  child.err_ = std::move(err.read);
  for (int fd : {child.in_.get(), child.out_.get(), child.err_.get()})
    if (fd >= 0) SetNonBlocking(fd);
  return child;
}

ChildProcess::ChildProcess(ChildProcess&& other) noexcept
    : pid_(std::exchange(other.pid_, -1)),
      kill_group_at_end_(other.kill_group_at_end_),
      status_(other.status_),
      in_(std::move(other.in_)),
      out_(std::move(other.out_)),
      err_(std::move(other.err_)) {}

ChildProcess& ChildProcess::operator=(ChildProcess&& other) noexcept {
  if (this != &other) {
    Kill();
    pid_ = std::exchange(other.pid_, -1);
    kill_group_at_end_ = other.kill_group_at_end_;
    status_ = other.status_;
    in_ = std::move(other.in_);
    out_ = std::move(other.out_);
    err_ = std::move(other.err_);
  }
  return *this;
}

ChildProcess::~ChildProcess() { Kill(); }

void ChildProcess::Reap(bool kill_group) {
  // The group first, while the shell's zombie still holds its id.
  if (kill_group) ::kill(-pid_, SIGKILL);
  while (::waitpid(pid_, &status_, 0) < 0 && errno == EINTR) {
  }
  ForgetChildGroup(pid_);
  pid_ = -1;
}

bool ChildProcess::Ended() {
  if (pid_ < 0) return true;
  siginfo_t info{};
  if (::waitid(P_PID, static_cast<id_t>(pid_), &info, WEXITED | WNOHANG | WNOWAIT) != 0 ||
      info.si_pid != pid_)
    return false;
  Reap(kill_group_at_end_);
  return true;
}

void ChildProcess::Kill() {
  if (pid_ < 0) return;
  ::kill(pid_, SIGKILL);
  Reap(true);
}

namespace {

void KeepOutput(std::string& out, std::string_view got, OutputLimit limit) {
  if (limit.keep == OutputLimit::Keep::kHead) {
    const std::size_t room = limit.max_bytes > out.size() ? limit.max_bytes - out.size() : 0;
    out.append(got.substr(0, room));
    return;
  }
  out.append(got);
  if (out.size() > limit.max_bytes) out.erase(0, out.size() - limit.max_bytes);
}

// Waits at most `wait_ms` for the child's stdout and reads all it holds now;
// closes our end at end of file or on a read error. Whether anything came.
bool ReadAvailable(ChildProcess& child, std::string& out, OutputLimit limit, long long wait_ms) {
  const int fd = child.stdout_fd();
  if (fd < 0) return false;
  pollfd p{fd, POLLIN, 0};
  if (::poll(&p, 1, static_cast<int>(wait_ms)) <= 0) return false;
  bool got = false;
  char buf[65536];
  while (true) {
    const ssize_t n = ::read(fd, buf, sizeof buf);
    if (n > 0) {
      KeepOutput(out, std::string_view(buf, static_cast<std::size_t>(n)), limit);
      got = true;
      continue;
    }
    if (n < 0 && errno == EINTR) continue;
    if (n == 0 || errno != EAGAIN) child.CloseStdout();
    return got;
  }
}

}  // namespace

std::expected<ChildRun, Error> RunToEnd(const ChildCommand& command,
                                        std::chrono::milliseconds timeout, OutputLimit limit,
                                        std::chrono::milliseconds quiet_after_end) {
  using Clock = std::chrono::steady_clock;
  auto child = ChildProcess::Start(command);
  if (!child) return std::unexpected(child.error());
  ChildRun run;
  const auto deadline = Clock::now() + timeout;
  const auto left_ms = [&] {
    return std::chrono::duration_cast<std::chrono::milliseconds>(deadline - Clock::now()).count();
  };
  while (!child->Ended()) {
    const long long left = left_ms();
    if (left <= 0) {
      run.timed_out = true;
      child->Kill();
      break;
    }
    // Wake for output, or every 20 ms to see whether the shell has ended.
    const long long wait = std::clamp<long long>(left, 1, 20);
    if (child->stdout_fd() >= 0) {
      ReadAvailable(*child, run.output, limit, wait);
    } else {
      ::usleep(static_cast<useconds_t>(wait) * 1000);
    }
  }
  run.status = child->status();
  if (!run.timed_out) {
    bool got = false;
    do {
      const long long wait = std::clamp<long long>(left_ms(), 0, quiet_after_end.count());
      got = ReadAvailable(*child, run.output, limit, wait);
    } while (got && left_ms() > 0);
  }
  return run;
}

}  // namespace llmconform
