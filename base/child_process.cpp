#include "base/child_process.h"

#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <spawn.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <array>
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

}  // namespace

std::vector<std::string> EnvironmentWith(const std::vector<std::string>& add) {
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

namespace {

void SetNonBlocking(int fd) { ::fcntl(fd, F_SETFL, ::fcntl(fd, F_GETFL) | O_NONBLOCK); }

struct Pipe {
  FileDescriptor read, write;
};

std::expected<Pipe, Error> MakePipe() {
  int fds[2];
  if (::pipe2(fds, O_CLOEXEC) != 0) return SysError("pipe");
  return Pipe{FileDescriptor(fds[0]), FileDescriptor(fds[1])};
}

// posix_spawn: the child shares our memory until it runs /bin/sh (glibc
// spawns with CLONE_VM | CLONE_VFORK), so starting it copies no page tables,
// however large this process is, and nothing here is written copy-on-write
// afterwards. The child starts with no signal blocked and SIGPIPE, SIGINT and
// SIGTERM at their defaults, whatever this process does with them (mockllm
// blocks SIGINT and SIGTERM and ignores SIGPIPE). Returns 0 or the errno of the
// step that failed.
int Spawn(pid_t& pid, const std::string& dir, const std::array<int, 3>& stdio, char* const argv[],
          char* const envp[]) {
  posix_spawn_file_actions_t actions;
  posix_spawnattr_t attr;
  if (int e = ::posix_spawn_file_actions_init(&actions)) return e;
  if (int e = ::posix_spawnattr_init(&attr)) {
    ::posix_spawn_file_actions_destroy(&actions);
    return e;
  }
  sigset_t none, defaults;
  sigemptyset(&none);
  sigemptyset(&defaults);
  for (int sig : {SIGPIPE, SIGINT, SIGTERM}) sigaddset(&defaults, sig);
  int e = ::posix_spawnattr_setflags(
      &attr, POSIX_SPAWN_SETPGROUP | POSIX_SPAWN_SETSIGMASK | POSIX_SPAWN_SETSIGDEF);
  if (!e) e = ::posix_spawnattr_setpgroup(&attr, 0);  // a group of its own, before it runs
  if (!e) e = ::posix_spawnattr_setsigmask(&attr, &none);
  if (!e) e = ::posix_spawnattr_setsigdefault(&attr, &defaults);
  for (int fd = 0; fd < 3 && !e; ++fd)
    e = ::posix_spawn_file_actions_adddup2(&actions, stdio[fd], fd);
  if (!e && !dir.empty()) e = ::posix_spawn_file_actions_addchdir_np(&actions, dir.c_str());
  if (!e) e = ::posix_spawn(&pid, "/bin/sh", &actions, &attr, argv, envp);
  ::posix_spawnattr_destroy(&attr);
  ::posix_spawn_file_actions_destroy(&actions);
  return e;
}

// Whether `dir` is a folder this process may enter.
bool CanEnter(const std::string& dir) {
  struct stat st {};
  return ::stat(dir.c_str(), &st) == 0 && S_ISDIR(st.st_mode) && ::access(dir.c_str(), X_OK) == 0;
}

}  // namespace

std::expected<ChildProcess, Error> ChildProcess::Start(const ChildCommand& command) {
  std::vector<std::string> vars = EnvironmentWith(command.env);
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
  const std::array<int, 3> stdio = {command.stdin_pipe ? in.read.get() : null_in, out->write.get(),
                                    command.stderr_apart ? err.write.get() : out->write.get()};
  pid_t pid = -1;
  auto held = HoldChildStarts();
  int e = Spawn(pid, dir, stdio, argv, envp.data());
  if (e && !dir.empty() && !CanEnter(dir)) {
    // The folder cannot be entered: the command fails as a shell would, with
    // exit status 126 and the reason on its stderr, and runs nothing. Any
    // other failure (a command over the kernel's argument limit, no process
    // left) is the Error below.
    char* const refuse[] = {
        const_cast<char*>("sh"), const_cast<char*>("-c"),
        const_cast<char*>("echo 'cannot enter the working folder' >&2; exit 126"), nullptr};
    e = Spawn(pid, "", stdio, refuse, envp.data());
  }
  if (e) {
    errno = e;
    return SysError("posix_spawn");
  }
  WatchChildGroup(pid);
  held.unlock();
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
