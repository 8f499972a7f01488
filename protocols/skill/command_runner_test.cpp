#include "protocols/skill/command_runner.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <fstream>

namespace llmconform::skill {
namespace {

using namespace std::chrono_literals;

std::filesystem::path TempDir() {
  char tmpl[] = "/tmp/skill_runner_XXXXXX";
  return ::mkdtemp(tmpl);
}

TEST(ShellCommandRunner, CapturesOutputAndStatus) {
  ShellCommandRunner runner(TempDir(), 30s);
  auto r = runner.Run("echo out; echo err 1>&2; exit 3");
  ASSERT_TRUE(r) << r.error().message;
  EXPECT_EQ(r->output, "out\nerr\n");
  EXPECT_EQ(r->exit_code, 3);
  EXPECT_FALSE(r->timed_out);
}

TEST(ShellCommandRunner, RunsInTheWorkingFolder) {
  const auto dir = TempDir();
  std::ofstream(dir / "marker.txt") << "here";
  ShellCommandRunner runner(dir, 30s);
  auto r = runner.Run("cat marker.txt; printf ' '; basename \"$PWD\"");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->output, "here " + dir.filename().string() + "\n");
}

TEST(ShellCommandRunner, MissingFolderFailsTheCommand) {
  ShellCommandRunner runner("/nonexistent/skill-runner", 30s);
  auto r = runner.Run("echo never");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->exit_code, 126);
  EXPECT_EQ(r->output, "cannot enter the working folder\n");
}

TEST(ShellCommandRunner, TimeoutKillsTheProcessGroup) {
  ShellCommandRunner runner(TempDir(), 200ms);
  auto r = runner.Run("echo started; sleep 30 & sleep 30");
  ASSERT_TRUE(r);
  EXPECT_TRUE(r->timed_out);
  EXPECT_EQ(r->output, "started\n");
  EXPECT_EQ(r->exit_code, 128 + 9);
}

TEST(ShellCommandRunner, BackgroundChildrenDoNotHoldTheResult) {
  ShellCommandRunner runner(TempDir(), 60s);
  auto r = runner.Run("sleep 2 & echo done");
  ASSERT_TRUE(r);
  EXPECT_FALSE(r->timed_out);
  EXPECT_EQ(r->output, "done\n");
  EXPECT_EQ(r->exit_code, 0);
}

TEST(ShellCommandRunner, OutputIsCapped) {
  ShellCommandRunner runner(TempDir(), 30s, 10);
  auto r = runner.Run("printf '0123456789abcdef'");
  ASSERT_TRUE(r);
  EXPECT_EQ(r->output, "0123456789");
}

TEST(ScriptedCommandRunner, HandsOutResultsInOrder) {
  ScriptedCommandRunner runner({{"one\n", 0, false}, {"two\n", 1, false}});
  EXPECT_EQ(runner.Run("a")->output, "one\n");
  EXPECT_EQ(runner.Run("b")->exit_code, 1);
  EXPECT_EQ(runner.Run("ls -la").error().message,
            "scripted command runner: no output left for command #3 (\"ls -la\")");
}

}  // namespace
}  // namespace llmconform::skill
