#include "harness/difftest/sut_process.h"

#include <gtest/gtest.h>
#include <signal.h>
#include <stdlib.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "base/json.h"

namespace llmconform::harness::difftest {
namespace {

using Kind = SutAnswer::Kind;

// A SUT written in Python: `body` runs once per request line with `req`
// bound to the parsed request, `n` to its position (0-based) since start.
std::string PythonSut(const std::string& body) {
  std::string script =
      "import json, sys\n"
      "n = 0\n"
      "def out(o):\n"
      "    sys.stdout.write(json.dumps(o) + '\\n'); sys.stdout.flush()\n"
      "for line in sys.stdin:\n"
      "    req = json.loads(line)\n" +
      body + "    n += 1\n";
  std::string quoted = "'";
  for (char c : script) quoted += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return "python3 -c " + quoted + "'";
}

std::vector<Json> Requests(int n) {
  std::vector<Json> out;
  for (int i = 0; i < n; ++i) out.push_back(Json{{"op", "x.y"}, {"input", {{"k", i}}}});
  return out;
}

TEST(Sut, AnswersInOrderArePairedWithTheirRequests) {
  Sut sut({.command = PythonSut("    out({'id': req['id'], 'output': {'k': req['input']['k']}})\n"),
           .window = 4});
  auto answers = sut.Exchange(Requests(50));
  ASSERT_TRUE(answers) << answers.error().message;
  ASSERT_EQ(answers->size(), 50u);
  for (int i = 0; i < 50; ++i) {
    EXPECT_EQ((*answers)[i].kind, Kind::kOutput);
    EXPECT_EQ((*answers)[i].value, (Json{{"k", i}}));
  }
  // A second exchange goes to the same process: ids keep rising.
  auto again = sut.Exchange(Requests(3));
  ASSERT_TRUE(again);
  EXPECT_EQ((*again)[2].value, (Json{{"k", 2}}));
  EXPECT_EQ(sut.restarts(), 0);
}

TEST(Sut, ErrorsAndGarbageAreAnswersOfTheirOwnKind) {
  Sut sut(
      {.command = PythonSut("    k = req['input']['k']\n"
                            "    if k == 1: out({'id': req['id'], 'error': 'no'})\n"
                            "    elif k == 2: sys.stdout.write('hello\\n'); sys.stdout.flush()\n"
                            "    elif k == 3: out({'id': req['id']})\n"
                            "    else: out({'id': req['id'], 'output': k})\n")});
  auto answers = sut.Exchange(Requests(5));
  ASSERT_TRUE(answers) << answers.error().message;
  EXPECT_EQ((*answers)[0].kind, Kind::kOutput);
  EXPECT_EQ((*answers)[1].kind, Kind::kError);
  EXPECT_EQ((*answers)[1].value, "no");
  EXPECT_EQ((*answers)[2].kind, Kind::kGarbage);
  EXPECT_NE((*answers)[2].detail.find("hello"), std::string::npos) << (*answers)[2].detail;
  EXPECT_EQ((*answers)[3].kind, Kind::kGarbage);
  EXPECT_EQ((*answers)[4].kind, Kind::kOutput);
  EXPECT_EQ((*answers)[4].value, 4);
}

TEST(Sut, AnAnswerAheadOfItsTurnIsOutOfOrder) {
  // Answers pairs swapped: 1 before 0, 3 before 2.
  Sut sut(
      {.command = PythonSut(
           "    if n % 2 == 0: held = req\n"
           "    else:\n"
           "        out({'id': req['id'], 'output': 1}); out({'id': held['id'], 'output': 0})\n"),
       .window = 8});
  auto answers = sut.Exchange(Requests(4));
  ASSERT_TRUE(answers) << answers.error().message;
  EXPECT_EQ((*answers)[1].kind, Kind::kOutOfOrder);
  EXPECT_EQ((*answers)[0].kind, Kind::kOutput);
  EXPECT_EQ((*answers)[3].kind, Kind::kOutOfOrder);
  EXPECT_EQ((*answers)[2].kind, Kind::kOutput);
}

TEST(Sut, AHangIsATimeoutAndTheSutIsRestarted) {
  Sut sut({.command = PythonSut("    if req['input']['k'] == 1:\n"
                                "        import time; time.sleep(60)\n"
                                "    out({'id': req['id'], 'output': req['input']['k']})\n"),
           // Long enough for python3 to start on a loaded machine.
           .case_timeout = std::chrono::milliseconds(5000),
           .window = 1});
  auto answers = sut.Exchange(Requests(3));
  ASSERT_TRUE(answers) << answers.error().message;
  EXPECT_EQ((*answers)[0].kind, Kind::kOutput);
  EXPECT_EQ((*answers)[1].kind, Kind::kTimeout);
  EXPECT_EQ((*answers)[2].kind, Kind::kOutput);
  EXPECT_EQ((*answers)[2].value, 2);
  EXPECT_EQ(sut.restarts(), 1);
}

TEST(Sut, ACrashIsBlamedOnTheCaseAndTheRestIsSentAgain) {
  Sut sut({.command = PythonSut("    if req['input']['k'] == 2: sys.exit(3)\n"
                                "    out({'id': req['id'], 'output': req['input']['k']})\n"),
           .window = 16});
  auto answers = sut.Exchange(Requests(6));
  ASSERT_TRUE(answers) << answers.error().message;
  for (int i : {0, 1, 3, 4, 5}) {
    EXPECT_EQ((*answers)[i].kind, Kind::kOutput) << i;
    EXPECT_EQ((*answers)[i].value, i);
  }
  EXPECT_EQ((*answers)[2].kind, Kind::kCrash);
  EXPECT_NE((*answers)[2].detail.find("exit status 3"), std::string::npos) << (*answers)[2].detail;
  EXPECT_GE(sut.restarts(), 1);
}

TEST(Sut, ACommandThatNeverAnswersIsAnError) {
  Sut sut({.command = "echo broken >&2; exit 7"});
  // Each failed start is blamed on one case: give it more than max_failed_starts.
  auto answers = sut.Exchange(Requests(5));
  ASSERT_FALSE(answers);
  EXPECT_NE(answers.error().message.find("exit status 7"), std::string::npos)
      << answers.error().message;
  EXPECT_NE(answers.error().message.find("broken"), std::string::npos) << answers.error().message;
}

TEST(Sut, ACommandThatNeverReadsItsInputIsAnError) {
  // Neither exits nor answers: given up after max_failed_starts timeouts in a
  // row, not a timeout per case (30 here, 1000 by default in `check`).
  Sut sut({.command = "exec sleep 60", .case_timeout = std::chrono::milliseconds(200)});
  auto answers = sut.Exchange(Requests(30));
  ASSERT_FALSE(answers);
  EXPECT_NE(answers.error().message.find("gave no answer within 200 ms, 3 times in a row"),
            std::string::npos)
      << answers.error().message;
  EXPECT_EQ(sut.restarts(), 2);
}

TEST(Sut, ABackgroundJobOfTheSutEndsWithIt) {
  char dir[] = "/tmp/llmconform-sut-XXXXXX";
  ASSERT_NE(::mkdtemp(dir), nullptr);
  const std::string pid_file = std::string(dir) + "/job.pid";
  {
    Sut sut({.command = "(sleep 313; echo) </dev/null >/dev/null 2>&1 & echo $! > " + pid_file +
                        "; " +
                        PythonSut("    out({'id': req['id'], 'output': req['input']['k']})\n")});
    auto answers = sut.Exchange(Requests(3));
    ASSERT_TRUE(answers) << answers.error().message;
    EXPECT_EQ((*answers)[2].value, 2);
  }  // the SUT ends normally: its stdin closed, it exits
  std::ifstream in(pid_file);
  pid_t pid = 0;
  ASSERT_TRUE(in >> pid);
  std::filesystem::remove_all(dir);
  // Killed, it is gone (or a zombie of init's) at once; a few seconds at most.
  bool gone = false;
  for (int i = 0; i < 250 && !gone; ++i) {
    std::ifstream stat("/proc/" + std::to_string(pid) + "/stat");
    std::string text((std::istreambuf_iterator<char>(stat)), {});
    const auto paren = text.rfind(')');
    gone = text.empty() || (paren != std::string::npos && text.substr(paren + 2, 1) == "Z");
    if (!gone) ::usleep(20000);
  }
  if (!gone) ::kill(pid, SIGKILL);
  EXPECT_TRUE(gone) << "the SUT's background job (pid " << pid << ") outlived it";
}

TEST(Sut, AnswersAreHandedOverAsTheyComeAndADeadlineStopsTheExchange) {
  // The first case is answered, the rest never are; each would wait out a
  // ten-minute case timeout but for the deadline (long enough for the SUT to
  // start and answer the first on a loaded machine).
  Sut sut({.command = PythonSut("    if n == 0: out({'id': req['id'], 'output': 'first'})\n"),
           .case_timeout = std::chrono::minutes(10)});
  std::vector<Json> inputs = {Json(0), Json(1), Json(2)};
  std::vector<std::size_t> seen;
  auto answered = sut.Exchange(
      "x.y", inputs,
      [&](std::size_t i, SutAnswer a) {
        seen.push_back(i);
        EXPECT_EQ(a.value, "first");
      },
      std::chrono::steady_clock::now() + std::chrono::seconds(3));
  ASSERT_TRUE(answered) << answered.error().message;
  EXPECT_EQ(*answered, 1u);
  EXPECT_EQ(seen, std::vector<std::size_t>{0});
  // The process that still owed answers was stopped: the next exchange
  // starts a fresh one, whose first answer is its own.
  auto again = sut.Exchange(Requests(1));
  ASSERT_TRUE(again) << again.error().message;
  EXPECT_EQ((*again)[0].value, "first");
}

TEST(Sut, KindsHaveNames) {
  EXPECT_EQ(SutAnswerKindName(Kind::kOutOfOrder), "out of order");
  EXPECT_EQ(SutAnswerKindName(Kind::kTimeout), "timeout");
}

}  // namespace
}  // namespace llmconform::harness::difftest
