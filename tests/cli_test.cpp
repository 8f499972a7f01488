// End-to-end tests of the llmconform command line: the real binary, run as a
// user runs it, on the bundled specs and on broken copies of them.
#include <gtest/gtest.h>
#include <unistd.h>

#include <csignal>
#include <filesystem>
#include <fstream>
#include <nlohmann/json.hpp>
#include <pugixml.hpp>

#include "base/test_paths.h"
#include "harness/scratch_dir.h"
#include "tests/subprocess.h"

namespace llmconform {
namespace {

namespace fs = std::filesystem;
using testing::ReadWholeFile;
using testing::RunProcess;

const std::string kBinary = ::llmconform::test_paths::LlmconformBinary();
const fs::path kRoot = ::llmconform::test_paths::SourceRoot();

// A scratch folder per test, removed afterwards.
class TempDir : public harness::ScratchDir {
 public:
  TempDir() : ScratchDir("llmconform-cli-") {}
};

TEST(Cli, HelpAndVersion) {
  auto help = RunProcess({kBinary, "--help"});
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.out.find("run"), std::string::npos);
  EXPECT_NE(help.out.find("Exit codes"), std::string::npos);
  auto version = RunProcess({kBinary, "--version"});
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_EQ(version.out.rfind("llmconform ", 0), 0u);
  auto bad = RunProcess({kBinary, "frobnicate"});
  EXPECT_EQ(bad.exit_code, 2);
}

TEST(Cli, RunOnTheBundledSpecsPassesAndWritesReports) {
  TempDir out;
  auto r = RunProcess(
      {kBinary, "run", "--specs", (kRoot / "specs").string(), "--out", out.path().string()}, "", "",
      {"NO_COLOR=1"});
  EXPECT_EQ(r.exit_code, 0) << r.out << r.err;
  EXPECT_NE(r.out.find("multiturn"), std::string::npos) << r.out;

  auto report = nlohmann::json::parse(ReadWholeFile(out.path() / "report.json"));
  EXPECT_EQ(report["format"], "llmconform-report/1");
  std::set<std::string> names;
  for (const auto& s : report["scenarios"]) {
    names.insert(s["protocol"].get<std::string>() + "/" + s["name"].get<std::string>());
    EXPECT_EQ(s["outcome"], "pass") << s.dump(2);
  }
  for (const char* s1to4 :
       {"multiturn/s1-standard-assembly", "multiturn/s2-trim-oldest-history",
        "multiturn/s3-empty-history", "multiturn/s4-forced-system-and-current"}) {
    EXPECT_TRUE(names.contains(s1to4)) << s1to4;
  }

  pugi::xml_document junit;
  ASSERT_TRUE(junit.load_file((out.path() / "junit.xml").c_str()));
  int cases = 0;
  for (auto suite : junit.child("testsuites").children("testsuite")) {
    cases += static_cast<int>(
        std::distance(suite.children("testcase").begin(), suite.children("testcase").end()));
  }
  EXPECT_GT(cases, 0);
  EXPECT_NE(ReadWholeFile(out.path() / "report.md").find("multiturn"), std::string::npos);
}

TEST(Cli, BrokenSpecExitsTwoWithALocatedMessage) {
  TempDir dir;
  fs::create_directories(dir.path() / "specs");
  fs::copy(kRoot / "specs" / "multiturn", dir.path() / "specs" / "multiturn",
           fs::copy_options::recursive);
  std::ofstream(dir.path() / "specs" / "multiturn" / "broken.json")
      << "{\n  \"protocol\": \"multiturn\",\n  \"name\": \"broken\",\n  \"rules\": "
         "[\"REQ-AIS-MULTITURN-1\",\n"
         "            \"NO-SUCH-RULE\"]\n}\n";
  auto r = RunProcess({kBinary, "run", "--specs", (dir.path() / "specs").string(), "--out",
                       (dir.path() / "out").string()});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find(
                "specs/multiturn/broken.json:5:13: \"rules\"[1]: unknown rule id \"NO-SUCH-RULE\""),
            std::string::npos)
      << r.err;
  EXPECT_FALSE(fs::exists(dir.path() / "out" / "report.json"));

  std::ofstream(dir.path() / "specs" / "multiturn" / "broken.json")
      << "{\"protocol\": \"multiturn\",\n \"name\": }";
  auto syntax = RunProcess({kBinary, "list", "--specs", (dir.path() / "specs").string()});
  EXPECT_EQ(syntax.exit_code, 2);
  EXPECT_NE(syntax.err.find("specs/multiturn/broken.json:2:"), std::string::npos) << syntax.err;
}

TEST(Cli, FilterThatMatchesNothingIsAUsageError) {
  auto r = RunProcess({kBinary, "run", "--specs", (kRoot / "specs").string(), "--filter", "nope/*",
                       "--report", "console"});
  EXPECT_EQ(r.exit_code, 2);
  EXPECT_NE(r.err.find("matches no scenario"), std::string::npos) << r.err;
}

TEST(Cli, RefReadsStdinAndWritesStdout) {
  auto ok = RunProcess({kBinary, "ref", "multiturn.estimateMessageTokens"}, R"({"text":"😀😀"})");
  EXPECT_EQ(ok.exit_code, 0) << ok.err;
  EXPECT_EQ(ok.out, "{\"tokens\":2}\n");
  auto malformed = RunProcess({kBinary, "ref", "multiturn.buildLLMMessages"}, "{not json");
  EXPECT_EQ(malformed.exit_code, 2);
  EXPECT_TRUE(malformed.out.empty());
  EXPECT_TRUE(nlohmann::json::parse(malformed.err).contains("error")) << malformed.err;
  auto list = RunProcess({kBinary, "ref", "--list"});
  EXPECT_EQ(list.exit_code, 0);
  EXPECT_NE(list.out.find("sse.parse"), std::string::npos);
  EXPECT_NE(list.out.find("wire.accumulate"), std::string::npos);
}

TEST(Cli, ListShowsScenariosAndRules) {
  auto s =
      RunProcess({kBinary, "list", "--specs", (kRoot / "specs").string(), "--filter", "multiturn"});
  EXPECT_EQ(s.exit_code, 0);
  EXPECT_NE(s.out.find("multiturn/s1-standard-assembly"), std::string::npos);
  auto rules =
      RunProcess({kBinary, "list", "--rules", "--json", "--specs", (kRoot / "specs").string()});
  EXPECT_EQ(rules.exit_code, 0);
  EXPECT_GE(nlohmann::json::parse(rules.out).size(), 9u);
}

TEST(Cli, JudgeAppliesTheRulesToAnotherClientsJournal) {
  TempDir dir;
  auto journal_with = [&](const nlohmann::json& messages) {
    const fs::path p = dir.path() / "journal.jsonl";
    std::ofstream(p) << nlohmann::json{{"seq", 1},
                                       {"method", "POST"},
                                       {"path", "/t/x/v1/chat/completions"},
                                       {"request",
                                        {{"body",
                                          {{"model", "gpt-4o-mini"}, {"messages", messages}}}}}}
                            .dump()
                     << "\n";
    return p.string();
  };
  const auto spec = nlohmann::json::parse(
      ReadWholeFile(kRoot / "specs" / "multiturn" / "s2-trim-oldest-history.json"));
  auto good = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                          "multiturn/s2-trim-oldest-history", "--journal",
                          journal_with(spec["expect"]["messages"]), "--report", "console"});
  EXPECT_EQ(good.exit_code, 0) << good.out << good.err;
  // A client that keeps the oldest history instead of the newest.
  auto bad = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                         "multiturn/s2-trim-oldest-history", "--journal",
                         journal_with(nlohmann::json::parse(R"([{"role":"system","content":"S"},
                           {"role":"user","content":"AAAA"},{"role":"assistant","content":"BBBB"},
                           {"role":"user","content":"E"}])")),
                         "--report", "console"},
                        "", "", {"NO_COLOR=1"});
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.out.find("REQ-AIS-MULTITURN-4: the kept history is not the newest contiguous run"),
            std::string::npos)
      << bad.out;
  // A client whose second request mockllm refused as past the trace's end.
  const fs::path refused = dir.path() / "refused.jsonl";
  {
    std::ofstream out(refused);
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["response"] = {{"status", 200}, {"exchange", 0}, {"outcome", "complete"}};
    out << entry.dump() << "\n";
    entry["seq"] = 2;
    entry["response"] = {{"status", 400}, {"exchange", nullptr}};
    entry["findings"] = {
        {{"rule", "trace_exhausted"},
         {"message", "trace \"x\" is exhausted: request 2 of session \"default\""}}};
    out << entry.dump() << "\n";
  }
  auto exhausted = RunProcess(
      {kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
       "multiturn/s2-trim-oldest-history", "--journal", refused.string(), "--report", "console"},
      "", "", {"NO_COLOR=1"});
  EXPECT_EQ(exhausted.exit_code, 1) << exhausted.out << exhausted.err;
  EXPECT_NE(exhausted.out.find("GATE-TRACE-EXHAUSTED"), std::string::npos) << exhausted.out;
  EXPECT_NE(exhausted.out.find("GATE-TOO-MANY-REQUESTS"), std::string::npos) << exhausted.out;
  auto missing = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                             "multiturn/nope", "--journal", journal_with(nlohmann::json::array())});
  EXPECT_EQ(missing.exit_code, 2);
  EXPECT_NE(missing.err.find("--scenario 'multiturn/nope': no such scenario"), std::string::npos)
      << missing.err;
  // An empty journal is said once, not a message per rule.
  const fs::path empty = dir.path() / "empty.json";
  std::ofstream(empty) << "[]\n";
  auto none = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                          "multiturn/s2-trim-oldest-history", "--journal", empty.string()});
  EXPECT_EQ(none.exit_code, 2);
  const auto said = none.err.find("no requests were journaled");
  ASSERT_NE(said, std::string::npos) << none.err;
  EXPECT_EQ(none.err.find("no requests were journaled", said + 1), std::string::npos) << none.err;
  EXPECT_EQ(none.out, "");
  // A body mockllm's journal bounds cut is not judged by what is left of it.
  const fs::path cut = dir.path() / "cut.jsonl";
  {
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["seq"] = 7;
    entry["request"]["body_cut"] = true;
    std::ofstream(cut) << entry.dump() << "\n";
  }
  auto refused_cut =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", cut.string()});
  EXPECT_EQ(refused_cut.exit_code, 2);
  EXPECT_NE(refused_cut.err.find("request seq 7 was cut"), std::string::npos) << refused_cut.err;
  EXPECT_NE(refused_cut.err.find("--journal-whole-bodies"), std::string::npos) << refused_cut.err;
  // Nor a client by a journal that lost its oldest requests to the limits.
  const fs::path dropped = dir.path() / "dropped.jsonl";
  {
    nlohmann::json entry =
        nlohmann::json::parse(ReadWholeFile(journal_with(spec["expect"]["messages"])));
    entry["seq"] = 9;
    entry["dropped_before"] = 8;
    std::ofstream(dropped) << entry.dump() << "\n";
  }
  auto refused_dropped =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", dropped.string()});
  EXPECT_EQ(refused_dropped.exit_code, 2);
  EXPECT_NE(refused_dropped.err.find("dropped 8 request(s) before seq 9"), std::string::npos)
      << refused_dropped.err;
  EXPECT_NE(refused_dropped.err.find("--journal-limit"), std::string::npos) << refused_dropped.err;
  // Nor entries of another shape than mockllm's journal: refused where they
  // are, not judged as a client's failure.
  const fs::path mistyped = dir.path() / "mistyped.jsonl";
  std::ofstream(mistyped) << R"({"seq":"1","request":{}})"
                          << "\n";
  auto refused_shape =
      RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                  "multiturn/s2-trim-oldest-history", "--journal", mistyped.string()});
  EXPECT_EQ(refused_shape.exit_code, 2);
  EXPECT_NE(
      refused_shape.err.find("mistyped.jsonl:1:8: entry 1: /seq: expected integer, got string"),
      std::string::npos)
      << refused_shape.err;
  // A device named by mistake is refused before it is read.
  auto device = RunProcess({kBinary, "judge", "--specs", (kRoot / "specs").string(), "--scenario",
                            "multiturn/s2-trim-oldest-history", "--journal", "/dev/zero"});
  EXPECT_EQ(device.exit_code, 2);
  EXPECT_NE(device.err.find("--journal /dev/zero: cannot read: it is a device, not a file"),
            std::string::npos)
      << device.err;
}

// Whether process `pid` is gone (or only a zombie waiting for init).
bool Gone(const std::string& pid) {
  const std::string stat = ReadWholeFile("/proc/" + pid + "/stat");
  const auto paren = stat.rfind(')');
  return stat.empty() || (paren != std::string::npos && stat.substr(paren + 2, 1) == "Z");
}

TEST(Cli, ASignalThatStopsLlmconformStopsTheCommandItRuns) {
  // The SUT runs in a process group of its own; timeout(1), as a CI job's
  // limit would, signals llmconform's group only. The SUT must not survive.
  TempDir dir;
  const fs::path pid_file = dir.path() / "sut.pid";
  for (const std::string sig : {"TERM", "INT"}) {
    fs::remove(pid_file);
    const std::string sut = "echo $$ > '" + pid_file.string() + "'; exec sleep 1003";
    auto r = RunProcess({"/usr/bin/timeout", "-s", sig, "3", kBinary, "check", "--sut", sut, "--op",
                         "action.parse", "--cases", "5", "--seed", "1", "--out",
                         (dir.path() / "out").string(), "--report", "console"},
                        "", kRoot.string());  // check reads specs/oracle from there
    EXPECT_EQ(r.exit_code, 124) << sig << r.out << r.err;
    std::string pid = ReadWholeFile(pid_file);
    while (!pid.empty() && pid.back() == '\n') pid.pop_back();
    ASSERT_FALSE(pid.empty()) << sig << ": the SUT never started";
    bool gone = false;
    for (int i = 0; i < 250 && !(gone = Gone(pid)); ++i) usleep(20000);
    EXPECT_TRUE(gone) << "the SUT (pid " << pid << ") outlived llmconform stopped by SIG" << sig;
    if (!gone) ::kill(std::stoi(pid), SIGKILL);
  }
}

}  // namespace
}  // namespace llmconform
