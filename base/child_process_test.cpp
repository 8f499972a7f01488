#include "base/child_process.h"

#include <gtest/gtest.h>
#include <linux/close_range.h>
#include <poll.h>
#include <signal.h>
#include <sys/wait.h>
#include <unistd.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <fstream>
#include <iterator>
#include <string>
#include <thread>
#include <vector>

#include "base/child_groups.h"

namespace llmconform {
namespace {

// Everything the child writes to stdout, until it closes it.
std::string ReadAll(ChildProcess& child) {
  std::string out;
  char buf[4096];
  while (true) {
    pollfd p{child.stdout_fd(), POLLIN, 0};
    if (::poll(&p, 1, -1) < 0) break;
    const ssize_t n = ::read(child.stdout_fd(), buf, sizeof buf);
    if (n > 0) out.append(buf, static_cast<std::size_t>(n));
    if (n == 0 || (n < 0 && errno != EAGAIN && errno != EINTR)) break;
  }
  return out;
}

// The child's wait status, once it has ended.
int StatusWhenEnded(ChildProcess& child) {
  while (!child.Ended()) ::usleep(1000);
  return child.status();
}

// Whether `pid` is gone (or a zombie), within a few seconds.
bool GoesSoon(pid_t pid) {
  for (int i = 0; i < 250; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    const std::string text((std::istreambuf_iterator<char>(stat)), {});
    const auto paren = text.rfind(')');
    if (text.empty() || (paren != std::string::npos && text.substr(paren + 2, 1) == "Z"))
      return true;
    ::usleep(20000);
  }
  ::kill(pid, SIGKILL);
  return false;
}

TEST(ChildProcess, RunsTheCommandWithItsEnvironmentAndFolder) {
  auto child = ChildProcess::Start({.command = "echo \"$LLMCONFORM_X\"; pwd; echo oops >&2; exit 3",
                                    .env = {"LLMCONFORM_X=hello"},
                                    .working_dir = "/tmp"});
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_EQ(child->stdin_fd(), -1);
  EXPECT_EQ(child->stderr_fd(), -1);
  EXPECT_EQ(ReadAll(*child), "hello\n/tmp\noops\n");
  const int status = StatusWhenEnded(*child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 3);
}

TEST(ChildProcess, ItsBackgroundJobsEndWithIt) {
  // The job holds none of our pipes: nothing but the group kill stops it.
  auto child = ChildProcess::Start(
      {.command = "sleep 315 </dev/null >/dev/null 2>&1 & echo $!", .stdin_pipe = true});
  ASSERT_TRUE(child) << child.error().message;
  const std::string out = ReadAll(*child);
  ASSERT_FALSE(out.empty());
  const pid_t job = std::stoi(out);
  EXPECT_TRUE(WIFEXITED(StatusWhenEnded(*child)));
  EXPECT_TRUE(GoesSoon(job)) << "the background job " << job << " outlived the command";
}

TEST(ChildProcess, KillEndsTheWholeGroup) {
  auto child =
      ChildProcess::Start({.command = "sleep 316 & echo $!; exec sleep 317", .stderr_apart = true});
  ASSERT_TRUE(child) << child.error().message;
  char buf[64] = {};
  pollfd p{child->stdout_fd(), POLLIN, 0};
  ASSERT_EQ(::poll(&p, 1, -1), 1);
  ASSERT_GT(::read(child->stdout_fd(), buf, sizeof buf - 1), 0);
  const pid_t job = std::stoi(buf);
  EXPECT_FALSE(child->Ended());
  child->Kill();
  EXPECT_TRUE(WIFSIGNALED(child->status()));
  EXPECT_TRUE(child->Ended());
  EXPECT_TRUE(GoesSoon(job));
}

TEST(ChildProcess, AFolderThatCannotBeEnteredIsACommandThatFails) {
  auto child = ChildProcess::Start(
      {.command = "echo ran", .working_dir = "/nonexistent/llmconform-child-folder"});
  ASSERT_TRUE(child) << child.error().message;
  EXPECT_EQ(ReadAll(*child), "cannot enter the working folder\n");
  const int status = StatusWhenEnded(*child);
  EXPECT_TRUE(WIFEXITED(status));
  EXPECT_EQ(WEXITSTATUS(status), 126);
}

TEST(ChildProcess, ACommandTheKernelRefusesIsAnErrorNotAFolderProblem) {
  // One argument over the kernel's per-argument limit (128 KiB): E2BIG.
  auto child = ChildProcess::Start(
      {.command = "echo " + std::string(200 * 1024, 'x'), .working_dir = "/tmp"});
  ASSERT_FALSE(child);
  EXPECT_EQ(child.error().kind, ErrorKind::kIo);
  EXPECT_NE(child.error().message.find("posix_spawn"), std::string::npos) << child.error().message;
}

// Hexadecimal signal set of a /proc/PID/status line ("SigBlk:\t0000...").
std::uint64_t SignalSet(const std::string& status, const std::string& name) {
  const auto at = status.find(name + ":");
  if (at == std::string::npos) return ~0ULL;
  return std::stoull(status.substr(at + name.size() + 1), nullptr, 16);
}

TEST(ChildProcess, StartsWithNoSignalBlockedAndSigpipeAtItsDefault) {
  // As in mockllm: SIGINT and SIGTERM blocked, SIGPIPE ignored.
  sigset_t block, old_mask;
  sigemptyset(&block);
  sigaddset(&block, SIGINT);
  sigaddset(&block, SIGTERM);
  ASSERT_EQ(::pthread_sigmask(SIG_BLOCK, &block, &old_mask), 0);
  const auto old_pipe = ::signal(SIGPIPE, SIG_IGN);
  auto child = ChildProcess::Start({.command = "exec cat /proc/self/status"});
  ::signal(SIGPIPE, old_pipe);
  ::pthread_sigmask(SIG_SETMASK, &old_mask, nullptr);
  ASSERT_TRUE(child) << child.error().message;
  const std::string status = ReadAll(*child);
  const auto bit = [](int sig) { return 1ULL << (sig - 1); };
  EXPECT_EQ(SignalSet(status, "SigBlk") & (bit(SIGINT) | bit(SIGTERM)), 0U) << status;
  EXPECT_EQ(SignalSet(status, "SigIgn") & bit(SIGPIPE), 0U) << status;
  StatusWhenEnded(*child);
}

TEST(ChildGroups, AStopSignalDuringChildStartsLeavesNoChildBehind) {
  // One thread starts children as fast as it can while SIGTERM comes from
  // outside; each child writes its pid first. Every child that ran must go
  // with llmconform, including one started while the signal was handled.
  const std::string pids = ::testing::TempDir() + "child_groups_pids_" + std::to_string(::getpid());
  std::remove(pids.c_str());
  for (int round = 0; round < 5; ++round) {
    EXPECT_EXIT(
        {
          // The children must not hold the death test's pipe: one left
          // behind would keep it open, and the test would wait on it.
          ::close_range(3, ~0U, CLOSE_RANGE_CLOEXEC);
          KillChildGroupsOnSignals();
          std::thread starter([&] {
            std::vector<ChildProcess> children;
            while (true) {
              auto child = ChildProcess::Start(
                  {.command = "echo $$ >> '" + pids + "'; exec sleep 318", .stderr_apart = true});
              if (child) children.push_back(std::move(*child));
            }
          });
          ::usleep(20000 + 7000 * round);
          ::kill(::getpid(), SIGTERM);
          starter.join();  // never: SIGTERM ends the process
        },
        ::testing::KilledBySignal(SIGTERM), "");
  }
  ::usleep(300000);  // a child left behind writes its pid meanwhile
  std::ifstream in(pids);
  int started = 0;
  for (std::string pid; std::getline(in, pid); ++started)
    EXPECT_TRUE(GoesSoon(std::stoi(pid))) << "child " << pid << " outlived its parent";
  EXPECT_GT(started, 0);
  std::remove(pids.c_str());
}

// RunToEnd keeps the first or the last bytes of what the command writes
// (stderr with stdout), and its status.
TEST(RunToEnd, KeepsTheHeadOrTheTailOfTheOutputAndTheStatus) {
  const ChildCommand cmd{.command = "printf 0123456789; printf abc >&2; exit 4"};
  auto head = RunToEnd(cmd, std::chrono::seconds(60), {.max_bytes = 4});
  ASSERT_TRUE(head) << head.error().message;
  EXPECT_EQ(head->output, "0123");
  EXPECT_FALSE(head->timed_out);
  EXPECT_TRUE(WIFEXITED(head->status));
  EXPECT_EQ(WEXITSTATUS(head->status), 4);
  auto tail =
      RunToEnd(cmd, std::chrono::seconds(60), {.max_bytes = 5, .keep = OutputLimit::Keep::kTail});
  ASSERT_TRUE(tail) << tail.error().message;
  EXPECT_EQ(tail->output, "89abc");
}

// At the deadline the whole group is killed, and what came before is kept.
TEST(RunToEnd, KillsTheGroupAtTheDeadline) {
  auto run = RunToEnd({.command = "sleep 318 & echo $!; exec sleep 319"}, std::chrono::seconds(2),
                      {.max_bytes = 64});
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_TRUE(run->timed_out);
  EXPECT_TRUE(WIFSIGNALED(run->status));
  ASSERT_FALSE(run->output.empty());
  EXPECT_TRUE(GoesSoon(std::stoi(run->output)));
}

// Output written after the shell ended, by a process that left its group,
// is still read while it keeps coming within `quiet_after_end`. The shell
// ends only once the writer has left its group (it says so in a file), so
// the group kill at the shell's end cannot reach it.
TEST(RunToEnd, ReadsWhatALeftOverWriterSendsUntilThePipeIsQuiet) {
  const std::string left = ::testing::TempDir() + "run_to_end_left_" + std::to_string(::getpid());
  std::remove(left.c_str());
  // The writer says when it has left the group, and writes only once the
  // shell is gone (reaped), so "late" comes after the shell's end, in order.
  auto run =
      RunToEnd({.command = "P=$$ setsid sh -c 'echo x > \"$LEFT\"; "
                           "while kill -0 \"$P\" 2>/dev/null; do sleep 0.01; done; echo late' & "
                           "while [ ! -s \"$LEFT\" ]; do sleep 0.01; done; echo early",
                .env = {"LEFT=" + left}},
               std::chrono::seconds(60), {.max_bytes = 64}, std::chrono::milliseconds(5000));
  std::remove(left.c_str());
  ASSERT_TRUE(run) << run.error().message;
  EXPECT_FALSE(run->timed_out);
  EXPECT_EQ(run->output, "early\nlate\n");
}

}  // namespace
}  // namespace llmconform
