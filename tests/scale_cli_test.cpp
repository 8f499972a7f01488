// End-to-end tests of parallel, sharded and merged runs (`run -j`, `run
// --shard`, `merge`), the CI shell recipe in docs/ci/, and the JUnit reports
// against the Jenkins schema: the real binary on the bundled specs.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <regex>
#include <set>

#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using nlohmann::json;
using testing::ReadWholeFile;
using testing::RunProcess;

const std::string kBinary = ::llmconform::test_paths::LlmconformBinary();
using ::llmconform::test_paths::kRoot;
const std::string kSpecs = (kRoot / "specs").string();

json ReadJson(const fs::path& p) { return json::parse(ReadWholeFile(p)); }

// The report without what legitimately differs between equal runs: when it
// started and how long things took — including what timing leaks into check
// messages: the loopback port a scenario's mockllm got ("127.0.0.1:43353")
// and counts that depend on time (heartbeats sent during a stall). Outcomes,
// rules, evidence and the rest of every message must be equal.
json Timeless(json report) {
  static const std::regex kPort(R"(127\.0\.0\.1:[0-9]+)");
  static const std::regex kNumber("[0-9]+");
  report.erase("started_at");
  report.erase("duration_ms");
  for (auto& s : report["scenarios"]) {
    s.erase("duration_ms");
    for (auto& c : s["checks"]) {
      const std::string message =
          std::regex_replace(c["message"].get<std::string>(), kPort, "127.0.0.1:PORT");
      c["message"] = std::regex_replace(message, kNumber, "N");
    }
  }
  return report;
}

std::vector<std::string> Ids(const json& report) {
  std::vector<std::string> ids;
  for (const auto& s : report["scenarios"])
    ids.push_back(s["protocol"].get<std::string>() + "/" + s["name"].get<std::string>());
  return ids;
}

// The reference every other run is compared with: the whole bundled suite
// run with -j 1 by the ctest fixture llmconform.serial_run.
const fs::path kSerial = ::llmconform::test_paths::SerialRunDir();

class ScaleCli : public ::testing::Test {
 protected:
  void SetUp() override {
    ASSERT_TRUE(fs::exists(SerialReport())) << "run the ctest fixture llmconform.serial_run first";
  }
  static fs::path SerialReport() { return kSerial / "report.json"; }
};

TEST_F(ScaleCli, ParallelRunReportsEqualTheSerialRun) {
  harness::ScratchDir out;
  auto r = RunProcess({kBinary, "run", "--specs", kSpecs, "-j", "3", "--out", out.path().string(),
                       "--report", "json", "--report", "console"},
                      "", "", {"NO_COLOR=1"}, std::chrono::seconds(600));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  const json serial = ReadJson(SerialReport()), parallel = ReadJson(out.path() / "report.json");
  EXPECT_EQ(Timeless(parallel), Timeless(serial));
  EXPECT_GT(serial["scenarios"].size(), 50u);
  EXPECT_EQ(serial["spec_hash"].get<std::string>().rfind("sha256:", 0), 0u);
  // The console still reports one scenario after another: [1/n], [2/n], …
  const auto n = serial["scenarios"].size();
  std::size_t at = 0;
  for (std::size_t k = 1; k <= n; ++k) {
    at = r.out.find("[" + std::to_string(k) + "/" + std::to_string(n) + "] ", at);
    ASSERT_NE(at, std::string::npos) << "no line " << k << " in order:\n" << r.out;
  }
}

TEST_F(ScaleCli, ShardsAreDisjointCoverAllAndMergeIntoTheSerialRun) {
  for (const bool timed : {false, true}) {
    harness::ScratchDir out;
    std::vector<std::string> merge_args = {kBinary, "merge"};
    std::multiset<std::string> seen;
    for (int k = 1; k <= 3; ++k) {
      const fs::path dir = out.path() / ("shard-" + std::to_string(k));
      std::vector<std::string> args = {
          kBinary, "run", "--specs", kSpecs,       "--shard",  std::to_string(k) + "/3",
          "-j",    "2",   "--out",   dir.string(), "--report", "json"};
      if (timed) args.insert(args.end(), {"--timings", SerialReport().string()});
      auto r = RunProcess(args, "", "", {}, std::chrono::seconds(600));
      ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
      const json shard = ReadJson(dir / "report.json");
      EXPECT_EQ(shard["shard"], std::to_string(k) + "/3");
      EXPECT_FALSE(shard["scenarios"].empty());
      for (const auto& id : Ids(shard)) seen.insert(id);
      merge_args.push_back((dir / "report.json").string());
    }
    const auto all = Ids(ReadJson(SerialReport()));
    EXPECT_EQ(seen, std::multiset<std::string>(all.begin(), all.end())) << "timed=" << timed;

    merge_args.insert(merge_args.end(), {"--out", (out.path() / "merged").string()});
    auto merged = RunProcess(merge_args, "", "", {"NO_COLOR=1"});
    ASSERT_EQ(merged.exit_code, 0) << merged.out << merged.err;
    EXPECT_EQ(Timeless(ReadJson(out.path() / "merged" / "report.json")),
              Timeless(ReadJson(SerialReport())));
    for (const char* file : {"junit.xml", "report.md", "report.html", "matrix.md", "matrix.json"})
      EXPECT_TRUE(fs::exists(out.path() / "merged" / file)) << file;
  }
}

TEST_F(ScaleCli, MergeExitsAsTheRunWouldAndRefusesOtherSpecSets) {
  harness::ScratchDir dir;
  // A failing run: one scenario's expectation changed in a copy of the specs.
  fs::copy(kRoot / "specs", dir.path() / "specs", fs::copy_options::recursive);
  const fs::path s1 = dir.path() / "specs" / "multiturn" / "s1-standard-assembly.json";
  json scenario = ReadJson(s1);
  scenario["expect"]["messages"][0]["content"] = "not what the client sends";
  std::ofstream(s1) << scenario.dump(2);
  auto failing = RunProcess({kBinary, "run", "--specs", (dir.path() / "specs").string(), "--root",
                             kRoot.string(), "--filter", "multiturn/*", "--out",
                             (dir.path() / "a").string(), "--report", "json"});
  ASSERT_EQ(failing.exit_code, 1) << failing.out << failing.err;
  auto merged_failing = RunProcess({kBinary, "merge", (dir.path() / "a" / "report.json").string(),
                                    "--out", (dir.path() / "m").string(), "--report", "json"});
  EXPECT_EQ(merged_failing.exit_code, 1) << merged_failing.err;

  // Its spec hash differs from the bundled specs': merging them is refused.
  auto refused = RunProcess({kBinary, "merge", SerialReport().string(),
                             (dir.path() / "a" / "report.json").string(), "--out",
                             (dir.path() / "x").string()});
  EXPECT_EQ(refused.exit_code, 2);
  EXPECT_NE(refused.err.find("differs from"), std::string::npos) << refused.err;
  EXPECT_FALSE(fs::exists(dir.path() / "x" / "report.json"));

  // The same report twice shares every scenario.
  auto twice = RunProcess({kBinary, "merge", SerialReport().string(), SerialReport().string(),
                           "--out", (dir.path() / "y").string()});
  EXPECT_EQ(twice.exit_code, 2);
  EXPECT_NE(twice.err.find("is also in"), std::string::npos) << twice.err;

  auto garbage = RunProcess({kBinary, "merge", s1.string(), "--out", (dir.path() / "z").string()});
  EXPECT_EQ(garbage.exit_code, 2);
  EXPECT_NE(garbage.err.find("s1-standard-assembly.json"), std::string::npos) << garbage.err;
}

TEST_F(ScaleCli, BadShardAndTimingsAreUsageErrors) {
  auto bad = RunProcess({kBinary, "run", "--specs", kSpecs, "--shard", "5/4", "--report", "json"});
  EXPECT_EQ(bad.exit_code, 2);
  EXPECT_NE(bad.err.find("--shard '5/4'"), std::string::npos) << bad.err;
  auto timings = RunProcess({kBinary, "run", "--specs", kSpecs, "--shard", "1/2", "--timings",
                             (kRoot / "README.md").string(), "--report", "json"});
  EXPECT_EQ(timings.exit_code, 2);
  EXPECT_NE(timings.err.find("--timings"), std::string::npos) << timings.err;
}

// On a terminal (a pseudo-terminal from script(1)) the console rewrites one
// progress line with elapsed time and ETA; with CI or NO_COLOR set, plain lines.
TEST(ScaleConsole, ProgressLineOnATerminalPlainLinesUnderCi) {
  const std::string cmd =
      kBinary + " run --specs " + kSpecs + " --filter 'multiturn/*' --report console -j 2";
  // Whatever the test's own environment says.
  auto tty = RunProcess({"/usr/bin/script", "-qec", "env -u CI -u NO_COLOR " + cmd, "/dev/null"});
  EXPECT_EQ(tty.exit_code, 0) << tty.out << tty.err;
  EXPECT_NE(tty.out.find("\r\x1b[2K"), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find(" ETA "), std::string::npos) << tty.out;
  EXPECT_NE(tty.out.find("[1/"), std::string::npos) << tty.out;
  for (const char* env : {"CI=true", "NO_COLOR=1"}) {
    auto plain = RunProcess({"/usr/bin/script", "-qec", cmd, "/dev/null"}, "", "", {env});
    EXPECT_EQ(plain.exit_code, 0) << plain.out << plain.err;
    EXPECT_EQ(plain.out.find('\x1b'), std::string::npos) << env << plain.out;
    EXPECT_EQ(plain.out.find(" ETA "), std::string::npos) << env << plain.out;
    EXPECT_NE(plain.out.find("[1/"), std::string::npos) << env << plain.out;
  }
}

// docs/ci/shard-and-merge.sh end to end: 4 shards side by side, then merge.
TEST_F(ScaleCli, ShellRecipeMergesFourShardsIntoTheSerialRun) {
  harness::ScratchDir out;
  auto r = RunProcess({"/bin/sh", (kRoot / "docs" / "ci" / "shard-and-merge.sh").string(), "4",
                       out.path().string()},
                      "", "", {"LLMCONFORM=" + kBinary, "SPECS=" + kSpecs, "NO_COLOR=1"},
                      std::chrono::seconds(600));
  ASSERT_EQ(r.exit_code, 0) << r.out << r.err;
  for (int k = 1; k <= 4; ++k)
    EXPECT_EQ(ReadJson(out.path() / ("shard-" + std::to_string(k)) / "report.json")["shard"],
              std::to_string(k) + "/4");
  EXPECT_EQ(Timeless(ReadJson(out.path() / "merged" / "report.json")),
            Timeless(ReadJson(SerialReport())));
  EXPECT_TRUE(fs::exists(out.path() / "merged" / "report.html"));
}

// The JUnit XML of a real run, of a merge and of the golden sample (which has
// failures, errors and skips) against tests/junit/junit.xsd.
TEST_F(ScaleCli, JUnitReportsValidateAgainstTheJenkinsSchema) {
  const std::string xsd = (kRoot / "tests" / "junit" / "junit.xsd").string();
  for (const fs::path& xml :
       {kSerial / "junit.xml", kRoot / "reports" / "testdata" / "junit.xml"}) {
    auto v = RunProcess({"/usr/bin/xmllint", "--noout", "--schema", xsd, xml.string()});
    EXPECT_EQ(v.exit_code, 0) << xml << "\n" << v.err;
    EXPECT_NE(v.err.find("validates"), std::string::npos) << v.err;
  }
  // And the schema does reject what it should: the old <skipped message=…/>.
  harness::ScratchDir dir;
  std::ofstream(dir.path() / "bad.xml")
      << "<testsuites><testsuite name=\"p\" tests=\"1\"><testcase name=\"r\">"
         "<skipped message=\"why\"/></testcase></testsuite></testsuites>\n";
  auto bad = RunProcess(
      {"/usr/bin/xmllint", "--noout", "--schema", xsd, (dir.path() / "bad.xml").string()});
  EXPECT_NE(bad.exit_code, 0) << bad.err;
}

}  // namespace
}  // namespace llmconform
