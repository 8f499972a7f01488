#include "reports/console_reporter.h"

#include <gtest/gtest.h>

#include "reports/sample_run_test_support.h"

namespace llmconform::reports {
namespace {

std::string Render(const RunResult& run, ConsoleOptions options) {
  return testing::RenderWith<ConsoleReporter>(run, options);
}

RunResult Small() {
  RunResult run;
  run.tool_version = "0.1.0";
  run.duration_ms = 250;
  run.scenarios = {
      {{"skill", "a", "", "specs/skill/a.json", "", "openai", {}},
       {CheckResult::Pass("skill.r1", "ok")},
       1},
      {{"skill", "b", "", "specs/skill/b.json", "fixtures/b.trace.jsonl", "openai", {}},
       {CheckResult::Fail("skill.r2", "wrong tag", {"<ASK>", "two\nlines", "/outputs/reply"})},
       2},
      {{"skill", "c", "", "specs/skill/c.json", "", "openai", {}},
       {CheckResult::Skip("skill.r1", "n/a")},
       3},
  };
  return run;
}

TEST(ConsoleReporter, PlainLinesMatchGolden) {
  testing::ExpectMatchesGolden("console.txt", Render(testing::SampleRun(), {false, false, 0}));
}

TEST(ConsoleReporter, PlainOutputHasNoEscapes) {
  const std::string text = Render(testing::SampleRun(), {false, false, 0});
  EXPECT_EQ(text.find('\x1b'), std::string::npos);
  EXPECT_EQ(text.find('\r'), std::string::npos);
}

TEST(ConsoleReporter, OnATerminalRewritesTheProgressLineInPlace) {
  const std::string text = Render(Small(), {false, true, 0});
  const std::string erase = "\r\x1b[2K";
  EXPECT_EQ(text.substr(0, text.find("\n            scenarios")),
            "llmconform 0.1.0: 3 scenarios from specs\n" +
                // a: started, then rewritten with its outcome, left open
                erase + "[1/3] skill/a \u2026" + erase + "[1/3] skill/a \u2026 pass" +
                // b: fails, so its line stays, with the failure under it
                erase + "[2/3] skill/b \u2026" + erase + "[2/3] skill/b \u2026 FAIL\n" +
                "    FAIL  skill.r2: wrong tag\n"
                "          expected: <ASK>\n"
                "          actual:   two\n"
                "                    lines\n"
                "          where:    /outputs/reply\n"
                "    scenario specs/skill/b.json, trace fixtures/b.trace.jsonl\n" +
                erase + "[3/3] skill/c \u2026" + erase + "[3/3] skill/c \u2026 skip" +
                // the run's end erases the open line before the summary
                erase);
}

TEST(ConsoleReporter, TruncatesTheProgressLineToTheTerminalWidth) {
  RunResult run = Small();
  run.scenarios.resize(1);
  run.scenarios[0].info.name = std::string(100, 'x');
  const std::string text = Render(run, {false, true, 40});
  // 40 columns: "[1/1] ", 25 for the name, " … ERROR" and the cursor.
  EXPECT_NE(text.find("[1/1] skill/" + std::string(18, 'x') + "\u2026 \u2026 pass"),
            std::string::npos)
      << text;
}

TEST(ConsoleReporter, ColoursOnlyWhenAsked) {
  const std::string coloured = Render(Small(), {true, false, 0});
  EXPECT_NE(coloured.find("\x1b[1;31mFAIL\x1b[0m"), std::string::npos);
  EXPECT_NE(coloured.find("\x1b[32mpass\x1b[0m"), std::string::npos);
  EXPECT_NE(
      coloured.find("\x1b[1;31mFAIL\x1b[0m 1 check failed in 1 of 3 scenarios \u2014 250 ms\n"),
      std::string::npos)
      << coloured;
  EXPECT_EQ(Render(Small(), {false, false, 0}).find('\x1b'), std::string::npos);
}

TEST(ConsoleReporter, EvidenceCannotDriveTheTerminal) {
  RunResult run = Small();
  run.scenarios[1].checks[0].message = "\x1b[2J\rcleared";
  const std::string text = Render(run, {false, false, 0});
  EXPECT_NE(text.find("    FAIL  skill.r2: \\u001b[2J\\rcleared\n"), std::string::npos) << text;
}

TEST(ConsoleReporter, OneErrorThatStoppedManyRulesIsOneLine) {
  RunResult run = Small();
  run.scenarios[1].checks = {CheckResult::Error("g.1", "the stream could not be read: refused"),
                             CheckResult::Error("g.2", "the stream could not be read: refused"),
                             CheckResult::Fail("g.3", "wrong", {}),
                             CheckResult::Error("g.4", "the stream could not be read: refused"),
                             CheckResult::Error("g.5", "timed out")};
  const std::string text = Render(run, {false, false, 0});
  EXPECT_NE(text.find("    ERROR g.1 and 2 more rules: the stream could not be read: refused\n"
                      "    FAIL  g.3: wrong\n"),
            std::string::npos)
      << text;
  EXPECT_NE(text.find("    ERROR g.5: timed out\n"), std::string::npos) << text;
  EXPECT_EQ(text.find("g.4"), std::string::npos) << text;
}

TEST(ConsoleReporter, VerdictLines) {
  RunResult run = Small();
  run.scenarios.erase(run.scenarios.begin() + 1);
  EXPECT_TRUE(Render(run, {}).ends_with(
      "\nPASS 2 scenarios, 2 checks conformant (1 skipped) \u2014 250 ms\n"));
  run.scenarios.push_back(
      {{"wire", "d", "", "", "", "", {}},
       {CheckResult::Error("wire.r", "x"), CheckResult::Fail("wire.q", "y", {})},
       0});
  EXPECT_TRUE(
      Render(run, {}).ends_with("\nERROR the harness could not judge 1 check in 1 of 3 scenarios; "
                                "1 check failed in 1 scenario \u2014 250 ms\n"))
      << Render(run, {});
}

TEST(ConsoleOptionsFor, HonoursNoColorCiAndTerminals) {
  const ConsoleOptions live = ConsoleOptionsFor(true, nullptr, nullptr, 80);
  EXPECT_TRUE(live.color);
  EXPECT_TRUE(live.tty);
  EXPECT_TRUE(live.timing);
  EXPECT_EQ(live.width, 80);
  EXPECT_TRUE(ConsoleOptionsFor(true, "", "", 80).tty);  // empty values do not count
  for (const ConsoleOptions& plain :
       {ConsoleOptionsFor(false, nullptr, nullptr, 80), ConsoleOptionsFor(true, "1", nullptr, 80),
        ConsoleOptionsFor(true, nullptr, "true", 80)}) {
    EXPECT_FALSE(plain.color);
    EXPECT_FALSE(plain.tty);
    EXPECT_FALSE(plain.timing);
    EXPECT_EQ(plain.width, 0);
  }
}

TEST(ProgressTiming, ElapsedAndEstimateOfWhatIsLeft) {
  EXPECT_EQ(ProgressTiming(0, 0, 12), "0:00 ETA -:--");
  EXPECT_EQ(ProgressTiming(4000, 2, 12), "0:04 ETA 0:20");
  EXPECT_EQ(ProgressTiming(61500, 1, 2), "1:01 ETA 1:01");
  EXPECT_EQ(ProgressTiming(3600 * 1000.0, 1, 3), "1:00:00 ETA 2:00:00");
  EXPECT_EQ(ProgressTiming(5000, 3, 3), "0:05 ETA 0:00");
}

TEST(ConsoleReporter, TimedTerminalLineShowsElapsedAndEta) {
  const std::string text =
      Render(Small(), {.color = false, .tty = true, .width = 0, .timing = true});
  EXPECT_NE(text.find("[1/3 0:00 ETA -:--] skill/a"), std::string::npos) << text;
  EXPECT_NE(text.find("[2/3 0:00 ETA "), std::string::npos) << text;
  EXPECT_EQ(Render(Small(), {false, false, 0, true}).find("ETA"), std::string::npos);
}

}  // namespace
}  // namespace llmconform::reports
